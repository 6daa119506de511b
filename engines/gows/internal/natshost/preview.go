package natshost

import (
	"context"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// previewParams: send.linkCustomPreview's args with the preview's image (when it has one)
// resolved as send.media's file is, by data or downloaded from url through the outbound policy;
// refusals name `preview.image.url` / `preview.image.data`.
var previewParams = from(func(ctx context.Context, args rpcschema.ArgsSendLinkCustomPreview) (any, error) {
	preview := rpcschema.ParamsSendLinkCustomPreviewPreview{Description: args.Preview.Description, Title: args.Preview.Title, URL: args.Preview.URL}
	if image := args.Preview.Image; image != nil {
		resolved, err := resolveFile(ctx, rpcschema.RemoteOrBinaryFile{Data: image.Data, Mimetype: deref(image.Mimetype), URL: image.URL}, "preview.image")
		if err != nil {
			return nil, err
		}
		preview.Image = &resolved
	}
	return rpcschema.ParamsSendLinkCustomPreview{ChatID: args.ChatID, ID: args.ID, LinkPreviewHighQuality: args.LinkPreviewHighQuality,
		Preview: preview, ReplyTo: args.ReplyTo, Text: args.Text}, nil
})
