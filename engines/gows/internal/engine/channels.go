package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Channels (WhatsApp newsletters; engine-pod/src/capabilities/channels.ts) with whatsmeow's
// newsletter functions, in the shapes NOWEB and SANDBOX answer (protocol/src/channels.ts):
// `channels`, `createChannel`, `channel`, `followChannel`, `unfollowChannel`, `muteChannel`,
// `unmuteChannel`, `channelPosts`, and `deleteChannel`, which whatsmeow has no function for: the
// `w:mex` mutation WhatsApp Web sends (Baileys' QueryIds.DELETE), through whatsmeow's own mex
// request. The directory search has no query in either library, so GOWS refuses it (the catalog).

const (
	// mutationDeleteNewsletter: `xwa2_newsletter_delete_v2`, variables {newsletter_id}.
	mutationDeleteNewsletter = "30062808666639665"
	channelInvitePrefix      = "https://www.whatsapp.com/channel/"
	channelMediaHost         = "https://mmg.whatsapp.net"
)

func newsletterJID(id, method string) (types.JID, error) {
	jid, err := types.ParseJID(id)
	if err != nil || jid.Server != types.NewsletterServer {
		return types.EmptyJID, commandError(hostapi.Invalid, "%s needs a channel id, <digits>@newsletter", method)
	}
	return jid, nil
}

// channelFailure: the service's refusals (GraphQL errors with an error_code, or an iq error) in the interface's terms.
func channelFailure(doing, key string, err error) error {
	code := 0
	var gqlErrs types.GraphQLErrors
	var gqlErr types.GraphQLError
	var iqErr *whatsmeow.IQError
	switch {
	case errors.As(err, &gqlErrs) && len(gqlErrs) > 0:
		code = gqlErrs[0].Extensions.ErrorCode
	case errors.As(err, &gqlErr):
		code = gqlErr.Extensions.ErrorCode
	case errors.As(err, &iqErr):
		code = iqErr.Code
	}
	switch code {
	case 404:
		return commandError(hostapi.NotFound, "GOWS could not %s: the service knows no channel %s", doing, key)
	case 401, 403:
		return commandError(hostapi.WrongStatus, "GOWS could not %s: %v", doing, err)
	}
	return commandError(hostapi.EngineError, "GOWS could not %s: %v", doing, err)
}

// channelRecord: whatsmeow's metadata as the interface's Channel.
func channelRecord(meta *types.NewsletterMetadata) map[string]any {
	thread := meta.ThreadMeta
	role := "GUEST"
	if meta.ViewerMeta != nil && meta.ViewerMeta.Role != "" {
		role = strings.ToUpper(string(meta.ViewerMeta.Role)) // whatsmeow lowercases it
	}
	switch role {
	case "OWNER", "ADMIN", "SUBSCRIBER", "GUEST":
	default:
		role = "GUEST"
	}
	record := map[string]any{
		"id":               meta.ID.String(),
		"name":             thread.Name.Text,
		"invite":           channelInvitePrefix + thread.InviteCode,
		"verified":         thread.VerificationState == types.NewsletterVerificationStateVerified,
		"subscribersCount": thread.SubscriberCount,
		"role":             role,
	}
	picture := ""
	if thread.Picture != nil {
		picture = thread.Picture.DirectPath
	}
	preview := thread.Preview.DirectPath
	if preview == "" {
		preview = picture
	}
	if picture != "" {
		record["picture"] = channelMediaHost + picture
	}
	if preview != "" {
		record["preview"] = channelMediaHost + preview
	}
	if thread.Description.Text != "" {
		record["description"] = thread.Description.Text
	}
	return record
}

// channelInfo: a channel by id or invite code, with the account's role (an invite lookup has
// none, so the channel is read again by its id).
func (e *Engine) channelInfo(ctx context.Context, client *whatsmeow.Client, by, key string) (*types.NewsletterMetadata, error) {
	var meta *types.NewsletterMetadata
	var err error
	if by == "invite" {
		meta, err = client.GetNewsletterInfoWithInvite(ctx, key)
		if err == nil && meta != nil {
			meta, err = client.GetNewsletterInfo(ctx, meta.ID)
		}
	} else {
		jid, jidErr := newsletterJID(key, "channel")
		if jidErr != nil {
			return nil, jidErr
		}
		meta, err = client.GetNewsletterInfo(ctx, jid)
	}
	if err != nil {
		return nil, channelFailure("read channel "+key, key, err)
	}
	if meta == nil {
		return nil, commandError(hostapi.NotFound, "GOWS could not read channel %s: the service knows no such channel", key)
	}
	return meta, nil
}

func (e *Engine) channels(ctx context.Context, args rpcschema.ArgsChannelsList) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	list, err := client.GetSubscribedNewsletters(ctx)
	if err != nil {
		return nil, channelFailure("list its channels", "subscribed", err)
	}
	out := make([]any, 0, len(list))
	for _, meta := range list {
		record := channelRecord(meta)
		if args.Role == nil || record["role"] == string(*args.Role) {
			out = append(out, record)
		}
	}
	return out, nil
}

// createChannel: the picture, when given, goes with the creation as the service's square JPEG.
func (e *Engine) createChannel(ctx context.Context, args rpcschema.ParamsCreateChannel) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	if args.Name == "" {
		return nil, commandError(hostapi.Invalid, "createChannel needs name")
	}
	create := whatsmeow.CreateNewsletterParams{Name: args.Name, Description: value(args.Description)}
	if args.Picture != nil && args.Picture.Data != "" {
		raw, err := base64.StdEncoding.DecodeString(args.Picture.Data)
		if err != nil {
			return nil, commandError(hostapi.Invalid, "createChannel: the picture's data must be base64: %v", err)
		}
		if create.Picture, err = squareJPEG(raw); err != nil {
			return nil, err
		}
	}
	meta, err := client.CreateNewsletter(ctx, create)
	if err != nil {
		return nil, channelFailure("create a channel", args.Name, err)
	}
	if meta == nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not create a channel: the service answered no channel")
	}
	return e.channelByID(ctx, client, meta.ID.String())
}

func (e *Engine) channelByID(ctx context.Context, client *whatsmeow.Client, id string) (any, error) {
	meta, err := e.channelInfo(ctx, client, "id", id)
	if err != nil {
		return nil, err
	}
	return channelRecord(meta), nil
}

func (e *Engine) channel(ctx context.Context, ref rpcschema.ParamsChannel) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	meta, err := e.channelInfo(ctx, client, string(ref.By), ref.Key)
	if err != nil {
		return nil, err
	}
	return channelRecord(meta), nil
}

func (e *Engine) deleteChannel(ctx context.Context, args rpcschema.ArgsChannelsDelete) (any, error) {
	return e.changeChannel(ctx, args.ID, "deleteChannel")
}

func (e *Engine) followChannel(ctx context.Context, args rpcschema.ArgsChannelsFollow) (any, error) {
	return e.changeChannel(ctx, args.ID, "followChannel")
}

func (e *Engine) unfollowChannel(ctx context.Context, args rpcschema.ArgsChannelsUnfollow) (any, error) {
	return e.changeChannel(ctx, args.ID, "unfollowChannel")
}

func (e *Engine) muteChannel(ctx context.Context, args rpcschema.ArgsChannelsMute) (any, error) {
	return e.changeChannel(ctx, args.ID, "muteChannel")
}

func (e *Engine) unmuteChannel(ctx context.Context, args rpcschema.ArgsChannelsUnmute) (any, error) {
	return e.changeChannel(ctx, args.ID, "unmuteChannel")
}

// deleteChannel, followChannel, unfollowChannel, muteChannel, unmuteChannel. A channel is read first, for the
// service's 404 (whatsmeow's mutations report no data) and for the owner's refusal to leave.
func (e *Engine) changeChannel(ctx context.Context, id, method string) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	jid, err := newsletterJID(id, method)
	if err != nil {
		return nil, err
	}
	meta, err := e.channelInfo(ctx, client, "id", id)
	if err != nil {
		return nil, err
	}
	role := channelRecord(meta)["role"]
	switch method {
	case "deleteChannel":
		if role != "OWNER" {
			return nil, commandError(hostapi.WrongStatus, "channel %s: only its owner may delete it; the account is its %s", id, role)
		}
		_, err = client.DangerousInternals().SendMexIQ(ctx, mutationDeleteNewsletter, map[string]any{"newsletter_id": jid.String()})
	case "followChannel":
		if role == "GUEST" {
			err = client.FollowNewsletter(ctx, jid)
		}
	case "unfollowChannel":
		if role == "OWNER" {
			return nil, commandError(hostapi.WrongStatus, "channel %s: its owner cannot unfollow it; delete it instead", id)
		}
		if role != "GUEST" {
			err = client.UnfollowNewsletter(ctx, jid)
		}
	default:
		err = client.NewsletterToggleMute(ctx, jid, method == "muteChannel")
	}
	if err != nil {
		return nil, channelFailure(method+" "+id, id, err)
	}
	return nil, nil
}

// channelPostMedia: a channel post's file, kept with the host; nil when it cannot be had or is
// over the media limit (logged). Channel files are stored on the media host unencrypted (no
// mediaKey), so it is whatsmeow's download by direct path with no keys, which skips decryption;
// only the direct path on the media_conn hosts is fetched, never the post's url. It goes to the
// spool under the media limit, as a received file does. whatsmeow checks no hash of unencrypted
// media, so the post's fileSha256 is checked here, on the file.
func (e *Engine) channelPostMedia(ctx context.Context, client *whatsmeow.Client, m *waE2E.Message) any {
	part, mimetype, filename := downloadable(m)
	if part == nil {
		return nil
	}
	path, err := e.spooled(declaredLength(part), func(file whatsmeow.File) error {
		if err := client.DownloadMediaWithPathToFile(ctx, part.GetDirectPath(), nil, nil, nil, -1, whatsmeow.GetMediaType(part), "", file); err != nil {
			return err
		}
		return checkSHA256(file, part.GetFileSHA256())
	})
	if err != nil {
		e.log.Warn("could not keep a channel post's file; its record has media null", "err", err.Error())
		return nil
	}
	return e.keepSpooled(ctx, mimetype, filename, path)
}

// checkSHA256: the file's SHA-256 is want (nothing to check when want is empty).
func checkSHA256(file io.ReadSeeker, want []byte) error {
	if len(want) == 0 {
		return nil
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("could not read the file back: %w", err)
	}
	hash := sha256.New()
	if _, err := io.Copy(hash, file); err != nil {
		return fmt.Errorf("could not read the file back: %w", err)
	}
	if !bytes.Equal(hash.Sum(nil), want) {
		return errors.New("the file does not match the post's fileSha256")
	}
	return nil
}

// channelPosts: the latest `limit` posts, oldest first (whatsmeow's GetNewsletterMessages); with
// downloadMedia, each post's file is downloaded and its record's media set.
func (e *Engine) channelPosts(ctx context.Context, args rpcschema.ParamsChannelPosts) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	if args.Channel.Key == "" {
		return nil, commandError(hostapi.Invalid, "channelPosts needs channel")
	}
	meta, err := e.channelInfo(ctx, client, string(args.Channel.By), args.Channel.Key)
	if err != nil {
		return nil, err
	}
	limit := args.Limit
	if limit <= 0 {
		limit = 10
	}
	posts, err := client.GetNewsletterMessages(ctx, meta.ID, &whatsmeow.GetNewsletterMessagesParams{Count: limit})
	if err != nil {
		return nil, channelFailure("read the posts of channel "+args.Channel.Key, args.Channel.Key, err)
	}
	sort.SliceStable(posts, func(i, j int) bool { return posts[i].Timestamp.Before(posts[j].Timestamp) })
	if len(posts) > limit {
		posts = posts[len(posts)-limit:]
	}
	me := e.me()
	out := make([]any, 0, len(posts))
	for _, post := range posts {
		info := types.MessageInfo{
			MessageSource: types.MessageSource{Chat: meta.ID, Sender: meta.ID},
			ID:            strconv.Itoa(int(post.MessageServerID)),
			Timestamp:     post.Timestamp,
		}
		message := post.Message
		if message == nil {
			message = &waE2E.Message{}
		}
		reactions := map[string]int{}
		for code, count := range post.ReactionCounts {
			reactions[code] = count
		}
		rec := e.record(info, message, address{chatID: meta.ID.String()}, me, "app", ackDevice)
		if value(args.DownloadMedia) && rec["hasMedia"] == true {
			rec["media"] = e.channelPostMedia(ctx, client, message)
		}
		out = append(out, map[string]any{
			"reactions": reactions,
			"viewCount": post.ViewsCount,
			"message":   rec,
		})
	}
	return out, nil
}
