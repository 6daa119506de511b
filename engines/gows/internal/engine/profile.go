package engine

import (
	"context"
	"errors"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/appstate"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// profile: the account's id, name and picture URL (null when it has none).
func (e *Engine) profile(ctx context.Context) (any, error) {
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	me := e.me()
	if me == nil || !client.IsLoggedIn() {
		return nil, commandError(hostapi.WrongStatus, "the session is not logged in")
	}
	var picture any
	info, err := client.GetProfilePictureInfo(ctx, client.Store.ID.ToNonAD(), &whatsmeow.GetProfilePictureParams{})
	switch {
	case errors.Is(err, whatsmeow.ErrProfilePictureNotSet):
	case err != nil:
		return nil, commandError(hostapi.EngineError, "GOWS could not read the profile picture: %v", err)
	case info != nil && info.URL != "":
		picture = info.URL
	}
	return map[string]any{"id": me["id"], "name": me["pushName"], "picture": picture}, nil
}

// setProfileStatus: the About text.
func (e *Engine) setProfileStatus(ctx context.Context, args rpcschema.ProfileStatusRequest) (any, error) {
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	if !client.IsLoggedIn() {
		return nil, commandError(hostapi.WrongStatus, "the session is not logged in")
	}
	if err := client.SetStatusMessage(ctx, args.Status); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not set the About text: %v", err)
	}
	return nil, nil
}

// setProfileName: the push name, the `setting_pushName` mutation of the `critical_block` app
// state collection, as the phone sets it.
func (e *Engine) setProfileName(ctx context.Context, args rpcschema.ProfileNameRequest) (any, error) {
	if args.Name == "" {
		return nil, commandError(hostapi.Invalid, "setProfileName needs name")
	}
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	if err := client.SendAppState(ctx, appstate.BuildSettingPushName(args.Name)); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not set the profile name: %v", err)
	}
	return nil, nil
}
