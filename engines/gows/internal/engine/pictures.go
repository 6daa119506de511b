package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	_ "image/gif" // decoders image.Decode reads pictures with
	"image/jpeg"
	_ "image/png"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
	"golang.org/x/image/draw"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Profile and group pictures. whatsmeow sends a picture as it is given (`SetGroupPhoto`, whose
// `w:profile:picture` set serves the account's own jid as well), and the service takes a square
// JPEG only, so the engine makes one first as Baileys does for NOWEB: the centre square, at most
// 640 pixels a side.

// pictureSide is the side of the square the service shows (Baileys' 640x640).
const pictureSide = 640

// pictureBytes: a picture's bytes from its params' base64.
func pictureBytes(data, method string) ([]byte, error) {
	if data == "" {
		return nil, commandError(hostapi.Invalid, "%s needs the picture's data (base64)", method)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, commandError(hostapi.Invalid, "%s: the picture's data must be base64: %v", method, err)
	}
	return raw, nil
}

// squareJPEG: the picture as the service takes it, a JPEG of its centre square scaled down to
// pictureSide (never up), resampled with x/image's Catmull-Rom filter.
func squareJPEG(raw []byte) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, commandError(hostapi.Invalid, "the picture must be a JPEG, PNG or GIF image: %v", err)
	}
	b := src.Bounds()
	side := min(b.Dx(), b.Dy())
	if side == 0 {
		return nil, commandError(hostapi.Invalid, "the picture is empty")
	}
	x0, y0 := b.Min.X+(b.Dx()-side)/2, b.Min.Y+(b.Dy()-side)/2
	out := min(side, pictureSide)
	dst := image.NewRGBA(image.Rect(0, 0, out, out))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, image.Rect(x0, y0, x0+side, y0+side), draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85}); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not make a JPEG of the picture: %v", err)
	}
	return buf.Bytes(), nil
}

// setPicture sets (a JPEG) or removes (nil) the picture of jid: the account's own or a group's.
func setPicture(ctx context.Context, client *whatsmeow.Client, jid types.JID, jpegBytes []byte, doing string) error {
	_, err := client.SetGroupPhoto(ctx, jid, jpegBytes)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, whatsmeow.ErrInvalidImageFormat):
		return commandError(hostapi.Invalid, "GOWS could not %s: the service refused the image (%v)", doing, err)
	case jid.Server == types.GroupServer:
		return groupFailure(doing, err)
	}
	return commandError(hostapi.EngineError, "GOWS could not %s: %v", doing, err)
}

// pictureURL: where jid's picture can be downloaded, or nil when it has none or hides it.
func pictureURL(ctx context.Context, client *whatsmeow.Client, jid types.JID, doing string) (any, error) {
	info, err := client.GetProfilePictureInfo(ctx, jid, &whatsmeow.GetProfilePictureParams{})
	switch {
	case errors.Is(err, whatsmeow.ErrProfilePictureNotSet), errors.Is(err, whatsmeow.ErrProfilePictureUnauthorized):
		return nil, nil
	case err != nil && jid.Server == types.GroupServer:
		return nil, groupFailure(doing, err)
	case err != nil:
		return nil, commandError(hostapi.EngineError, "GOWS could not %s: %v", doing, err)
	case info == nil || info.URL == "":
		return nil, nil
	}
	return info.URL, nil
}

// setProfilePicture: the account's own picture.
func (e *Engine) setProfilePicture(ctx context.Context, args rpcschema.EngineFile) (any, error) {
	raw, err := pictureBytes(args.Data, "setProfilePicture")
	if err != nil {
		return nil, err
	}
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	picture, err := squareJPEG(raw)
	if err != nil {
		return nil, err
	}
	return nil, setPicture(ctx, client, client.Store.ID.ToNonAD(), picture, "set the profile picture")
}

func (e *Engine) deleteProfilePicture(ctx context.Context) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	return nil, setPicture(ctx, client, client.Store.ID.ToNonAD(), nil, "remove the profile picture")
}

// groupPicture: the group's picture URL, or null when it has none.
func (e *Engine) groupPicture(ctx context.Context, args rpcschema.ArgsGroupPicture) (any, error) {
	client, jid, err := e.groupCall(args.ID, "groupPicture")
	if err != nil {
		return nil, err
	}
	if jid.IsEmpty() {
		return nil, commandError(hostapi.Invalid, "groupPicture needs id")
	}
	return pictureURL(ctx, client, jid, "read the group picture")
}

func (e *Engine) setGroupPicture(ctx context.Context, args rpcschema.ParamsSetGroupPicture) (any, error) {
	raw, err := pictureBytes(args.File.Data, "setGroupPicture")
	if err != nil {
		return nil, err
	}
	client, jid, err := e.groupCall(args.ID, "setGroupPicture")
	if err != nil {
		return nil, err
	}
	if jid.IsEmpty() {
		return nil, commandError(hostapi.Invalid, "setGroupPicture needs id")
	}
	picture, err := squareJPEG(raw)
	if err != nil {
		return nil, err
	}
	return nil, setPicture(ctx, client, jid, picture, "set the group picture")
}

func (e *Engine) deleteGroupPicture(ctx context.Context, args rpcschema.ArgsGroupDeletePicture) (any, error) {
	client, jid, err := e.groupCall(args.ID, "deleteGroupPicture")
	if err != nil {
		return nil, err
	}
	if jid.IsEmpty() {
		return nil, commandError(hostapi.Invalid, "deleteGroupPicture needs id")
	}
	return nil, setPicture(ctx, client, jid, nil, "remove the group picture")
}

// chatPicture: a chat's picture (a contact's or a group's) in NOWEB's shape, {url}, null when
// there is none or the account may not see it.
func (e *Engine) chatPicture(ctx context.Context, args rpcschema.ArgsChatPicture) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "chatPicture needs chatId")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	url, err := pictureURL(ctx, client, chat, "read the picture of "+args.ChatID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"url": url}, nil
}
