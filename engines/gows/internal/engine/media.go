package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// mediaHTTPClient trusts, besides the system's roots, the PEM file SWITCHBOARD_GOWS_MEDIA_CA names
// (tests: the fake media server's self-signed certificate). Nil when it is unset.
func mediaHTTPClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("SWITCHBOARD_GOWS_MEDIA_CA: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("SWITCHBOARD_GOWS_MEDIA_CA: no PEM certificate in %s", caFile)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}, nil
}

// downloadable is the media part of a message, and its MIME type and file name.
func downloadable(m *waE2E.Message) (whatsmeow.DownloadableMessage, string, string) {
	switch {
	case m.ImageMessage != nil:
		return m.ImageMessage, m.ImageMessage.GetMimetype(), ""
	case m.VideoMessage != nil:
		return m.VideoMessage, m.VideoMessage.GetMimetype(), ""
	case m.PtvMessage != nil:
		return m.PtvMessage, m.PtvMessage.GetMimetype(), ""
	case m.AudioMessage != nil:
		return m.AudioMessage, m.AudioMessage.GetMimetype(), ""
	case m.DocumentMessage != nil:
		return m.DocumentMessage, m.DocumentMessage.GetMimetype(), m.DocumentMessage.GetFileName()
	case m.StickerMessage != nil:
		return m.StickerMessage, m.StickerMessage.GetMimetype(), ""
	}
	return nil, "", ""
}

// saveMedia keeps a file the account sends with the host, through the spool as a received one:
// the record's `media` object, or nil.
func (e *Engine) saveMedia(ctx context.Context, mimetype, filename string, data []byte) any {
	path, err := e.spoolBytes(data)
	if err != nil {
		e.log.Warn("the host could not keep a media file", "err", err.Error())
		return nil
	}
	return e.keepSpooled(ctx, mimetype, filename, path)
}

// receivedMedia downloads a received media message's file to the spool and keeps it with the
// host; nil when it cannot be had or is over the media limit (the record then says hasMedia with
// media null, as NOWEB's does), which is logged.
func (e *Engine) receivedMedia(ctx context.Context, client *whatsmeow.Client, m *waE2E.Message) any {
	part, mimetype, filename := downloadable(m)
	if part == nil {
		return nil
	}
	path, err := e.spooled(declaredLength(part), func(file whatsmeow.File) error { return client.DownloadToFile(ctx, part, file) })
	if err != nil {
		e.log.Warn("could not keep a received file; its record has media null", "err", err.Error())
		return nil
	}
	return e.keepSpooled(ctx, mimetype, filename, path)
}

// declaredLength is the file length a media message states (0 when it states none).
func declaredLength(part whatsmeow.DownloadableMessage) uint64 {
	if sized, ok := part.(interface{ GetFileLength() uint64 }); ok {
		return sized.GetFileLength()
	}
	return 0
}

func (e *Engine) sendMedia(ctx context.Context, args rpcschema.ParamsSendMedia) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "sendMedia needs chatId, kind and file")
	}
	if value(args.Convert) {
		return nil, &CommandError{Code: hostapi.NotSupported, Message: "GOWS does not convert files (convert): it sends them as they are; send OGG/Opus voice and MP4 (H.264/AAC) video with convert false", Details: map[string]any{"field": "convert"}}
	}
	data, err := base64.StdEncoding.DecodeString(args.File.Data)
	if err != nil {
		return nil, commandError(hostapi.Invalid, "file.data must be base64: %v", err)
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	var contextInfo *waE2E.ContextInfo
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		contextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	msg, err := uploadedMessage(ctx, client, string(args.Kind), args.File, data, args.Caption, value(args.AsNote), contextInfo)
	if err != nil {
		return nil, err
	}
	filename := ""
	if args.File.Filename != nil {
		filename = *args.File.Filename
	}
	saved := e.saveMedia(ctx, args.File.Mimetype, filename, data)
	rec, err := e.sendWith(ctx, client, chat, args.ChatID, msg, args.ID, saved)
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// uploadedMessage uploads a file and makes the message that carries it: an image, a video (or
// video note), a voice note or a document, with its caption and context (sends and statuses).
func uploadedMessage(ctx context.Context, client *whatsmeow.Client, kind string, file rpcschema.EngineFile, data []byte, caption *string, asNote bool, contextInfo *waE2E.ContextInfo) (*waE2E.Message, error) {
	mediaType := map[string]whatsmeow.MediaType{"image": whatsmeow.MediaImage, "file": whatsmeow.MediaDocument, "voice": whatsmeow.MediaAudio, "video": whatsmeow.MediaVideo}[kind]
	if mediaType == "" {
		return nil, commandError(hostapi.Invalid, "kind must be image, file, voice or video, got %q", kind)
	}
	up, err := client.Upload(ctx, data, mediaType)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not upload the file: %v", err)
	}
	if caption != nil && *caption == "" {
		caption = nil
	}
	mimetype := file.Mimetype
	length := proto.Uint64(uint64(len(data)))
	msg := &waE2E.Message{}
	switch kind {
	case "image":
		msg.ImageMessage = &waE2E.ImageMessage{URL: &up.URL, DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: length, Mimetype: &mimetype, Caption: caption, ContextInfo: contextInfo}
	case "video":
		video := &waE2E.VideoMessage{URL: &up.URL, DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: length, Mimetype: &mimetype, Caption: caption, ContextInfo: contextInfo}
		if asNote {
			msg.PtvMessage = video
		} else {
			msg.VideoMessage = video
		}
	case "voice":
		msg.AudioMessage = &waE2E.AudioMessage{URL: &up.URL, DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: length, Mimetype: &mimetype, PTT: proto.Bool(true), ContextInfo: contextInfo}
	case "file":
		name := "file"
		if file.Filename != nil && *file.Filename != "" {
			name = *file.Filename
		}
		msg.DocumentMessage = &waE2E.DocumentMessage{URL: &up.URL, DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: length, Mimetype: &mimetype, FileName: &name, Title: &name, Caption: caption, ContextInfo: contextInfo}
	}
	return msg, nil
}
