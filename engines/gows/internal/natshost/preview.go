package natshost

// previewParams: send.linkCustomPreview's args with the preview's image (when it has one)
// resolved as send.media's file is, by data or downloaded from url through the outbound policy;
// refusals name `preview.image.url` / `preview.image.data`.
func previewParams(args map[string]any) (any, error) {
	preview, _ := args["preview"].(map[string]any)
	if preview == nil || preview["image"] == nil {
		return args, nil
	}
	resolved, err := fileParamsNamed("image", "preview.image")(preview)
	if err != nil {
		return nil, err
	}
	params := map[string]any{}
	for key, value := range args {
		params[key] = value
	}
	params["preview"] = resolved
	return params, nil
}
