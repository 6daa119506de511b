package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/jpeg"
	"strings"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"golang.org/x/image/draw"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// previewThumbnailWidth is the width of a link preview's inline JPEG, Baileys' (NOWEB's) 192.
const previewThumbnailWidth = 192

// sendLinkCustomPreview is text with the caller's link preview (NOWEB's linkPreviewContent): an
// ExtendedTextMessage with the URL as matchedText, title, description and a JPEG thumbnail of the
// image; high quality also uploads the image as a `thumbnail-link` (thumbnailDirectPath, its
// hashes, mediaKey and size), which phones show full width. whatsmeow's message has no
// canonicalUrl field, so only matchedText carries the URL.
func (e *Engine) sendLinkCustomPreview(ctx context.Context, args rpcschema.ParamsSendLinkCustomPreview) (any, error) {
	if args.ChatID == "" || args.Text == "" || args.Preview.URL == "" {
		return nil, commandError(hostapi.Invalid, "sendLinkCustomPreview needs chatId, text and preview.url")
	}
	if !strings.Contains(args.Text, args.Preview.URL) {
		return nil, &CommandError{Code: hostapi.Invalid, Message: "text: must include preview.url", Details: map[string]any{"field": "text"}}
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	ext := &waE2E.ExtendedTextMessage{Text: proto.String(args.Text), MatchedText: proto.String(args.Preview.URL), Title: proto.String(args.Preview.Title),
		Description: proto.String(value(args.Preview.Description)), PreviewType: waE2E.ExtendedTextMessage_NONE.Enum()}
	if args.Preview.Image != nil {
		raw, err := base64.StdEncoding.DecodeString(args.Preview.Image.Data)
		if err != nil {
			return nil, &CommandError{Code: hostapi.Invalid, Message: "preview.image: the data must be base64", Details: map[string]any{"field": "preview.image"}}
		}
		thumbnail, width, height, err := previewThumbnail(raw)
		if err != nil {
			return nil, err
		}
		ext.JPEGThumbnail = thumbnail
		if args.LinkPreviewHighQuality == nil || *args.LinkPreviewHighQuality { // protocol's default: true
			up, err := client.Upload(ctx, raw, whatsmeow.MediaLinkThumbnail)
			if err != nil {
				return nil, commandError(hostapi.EngineError, "GOWS could not upload the preview's image: %v", err)
			}
			ext.ThumbnailDirectPath, ext.ThumbnailSHA256, ext.ThumbnailEncSHA256 = &up.DirectPath, up.FileSHA256, up.FileEncSHA256
			ext.MediaKey, ext.MediaKeyTimestamp = up.MediaKey, proto.Int64(time.Now().Unix())
			ext.ThumbnailWidth, ext.ThumbnailHeight = proto.Uint32(uint32(width)), proto.Uint32(uint32(height))
		}
	}
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		ext.ContextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	return e.send(ctx, client, chat, args.ChatID, &waE2E.Message{ExtendedTextMessage: ext}, args.ID)
}

// previewThumbnail: the image scaled to previewThumbnailWidth wide (never up) as a JPEG, and the
// image's own width and height; an INVALID naming preview.image when it is no image Go reads.
func previewThumbnail(raw []byte) ([]byte, int, int, error) {
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil || src.Bounds().Empty() {
		return nil, 0, 0, &CommandError{Code: hostapi.Invalid, Message: "preview.image: is not an image the engine can read (JPEG, PNG, GIF)", Details: map[string]any{"field": "preview.image"}}
	}
	b := src.Bounds()
	w := min(b.Dx(), previewThumbnailWidth)
	h := max(1, b.Dy()*w/b.Dx())
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 80}); err != nil {
		return nil, 0, 0, commandError(hostapi.EngineError, "GOWS could not make the preview's thumbnail: %v", err)
	}
	return buf.Bytes(), b.Dx(), b.Dy(), nil
}
