package natshost

// labelChange: a label's id and new name and colour as updateLabel's params, as engine-pod's dispatch sends them.
func labelChange(args map[string]any) (any, error) {
	params := map[string]any{"id": args["id"]}
	if label, ok := args["label"].(map[string]any); ok {
		params["name"], params["color"] = label["name"], label["color"]
	}
	return params, nil
}

// chatLabelIDs: the chat's labels from now on as setChatLabels's params, each id once.
func chatLabelIDs(args map[string]any) (any, error) {
	labels, _ := args["labels"].([]any)
	ids := make([]any, 0, len(labels))
	seen := map[any]bool{}
	for _, label := range labels {
		if l, ok := label.(map[string]any); ok && !seen[l["id"]] {
			seen[l["id"]] = true
			ids = append(ids, l["id"])
		}
	}
	return map[string]any{"chatId": args["chatId"], "labelIds": ids}, nil
}
