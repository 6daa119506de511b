package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	mathRand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mau.fi/util/random"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/util/keys"
	waLog "go.mau.fi/whatsmeow/util/log"
	"google.golang.org/protobuf/proto"
)

// Store implements every whatsmeow store (store.AllStores and the device container) over the
// one KV: a single account per process, so no key carries the account's jid.
type Store struct {
	kv    *KV
	log   waLog.Logger
	preMu sync.Mutex
	txnMu sync.Mutex
	// appStateRead, when set, learns each app state collection's version as whatsmeow reads it
	// (fullSyncEvents in labels.go).
	appStateRead func(name string, version uint64)
	// pushName is the account's name as last loaded or saved. whatsmeow writes its device's
	// PushName from the goroutine that applies app state, then saves the device here, in that
	// goroutine; the engine reads this copy instead of the device's field, which other goroutines
	// (commands, the me info) could otherwise read while it is written.
	pushName atomic.Pointer[string]
}

// PushName is the account's name as the stored device last had it ("" before the first sync).
func (s *Store) PushName() string {
	if name := s.pushName.Load(); name != nil {
		return *name
	}
	return ""
}

func (s *Store) keepPushName(name string) { s.pushName.Store(&name) }

var _ store.AllStores = (*Store)(nil)
var _ store.DeviceContainer = (*Store)(nil)

func NewStore(kv *KV, log waLog.Logger) *Store { return &Store{kv: kv, log: log} }

type storedDevice struct {
	NoiseKey              []byte `json:"noiseKey"`
	IdentityKey           []byte `json:"identityKey"`
	SignedPreKey          []byte `json:"signedPreKey"`
	SignedPreKeyID        uint32 `json:"signedPreKeyId"`
	SignedPreKeySig       []byte `json:"signedPreKeySig"`
	RegistrationID        uint32 `json:"registrationId"`
	AdvSecretKey          []byte `json:"advSecretKey"`
	ID                    string `json:"id,omitempty"`
	LID                   string `json:"lid,omitempty"`
	Account               []byte `json:"account,omitempty"`
	Platform              string `json:"platform,omitempty"`
	BusinessName          string `json:"businessName,omitempty"`
	PushName              string `json:"pushName,omitempty"`
	LIDMigrationTimestamp int64  `json:"lidMigrationTimestamp,omitempty"`
	FacebookUUID          string `json:"facebookUuid,omitempty"`
}

const deviceID = "device"

// Device is the stored device, or a new one (keys made here) when there is none.
func (s *Store) Device() (*store.Device, error) {
	var sd storedDevice
	found, err := s.kv.Get("device", deviceID, &sd)
	if err != nil {
		return nil, err
	}
	device := &store.Device{Log: s.log, Container: s}
	s.attach(device)
	if !found {
		device.NoiseKey = keys.NewKeyPair()
		device.IdentityKey = keys.NewKeyPair()
		device.RegistrationID = mathRand.Uint32()
		device.AdvSecretKey = random.Bytes(32)
		device.SignedPreKey = device.IdentityKey.CreateSignedPreKey(1)
		return device, nil
	}
	device.NoiseKey = keys.NewKeyPairFromPrivateKey([32]byte(sd.NoiseKey))
	device.IdentityKey = keys.NewKeyPairFromPrivateKey([32]byte(sd.IdentityKey))
	device.SignedPreKey = &keys.PreKey{KeyPair: *keys.NewKeyPairFromPrivateKey([32]byte(sd.SignedPreKey)), KeyID: sd.SignedPreKeyID}
	if len(sd.SignedPreKeySig) == 64 {
		sig := [64]byte(sd.SignedPreKeySig)
		device.SignedPreKey.Signature = &sig
	}
	device.RegistrationID = sd.RegistrationID
	device.AdvSecretKey = sd.AdvSecretKey
	if sd.ID != "" {
		jid, err := types.ParseJID(sd.ID)
		if err != nil {
			return nil, err
		}
		device.ID = &jid
		device.Initialized = true
	}
	if sd.LID != "" {
		device.LID, _ = types.ParseJID(sd.LID)
	}
	if len(sd.Account) > 0 {
		device.Account = &waAdv.ADVSignedDeviceIdentity{}
		if err := proto.Unmarshal(sd.Account, device.Account); err != nil {
			return nil, err
		}
	}
	device.Platform = sd.Platform
	device.BusinessName = sd.BusinessName
	device.PushName = sd.PushName
	s.keepPushName(sd.PushName)
	device.LIDMigrationTimestamp = sd.LIDMigrationTimestamp
	return device, nil
}

func (s *Store) attach(device *store.Device) {
	device.Identities = s
	device.Sessions = s
	device.PreKeys = s
	device.SenderKeys = s
	device.AppStateKeys = s
	device.AppState = s
	device.Contacts = s
	device.ChatSettings = s
	device.MsgSecrets = s
	device.PrivacyTokens = s
	device.EventBuffer = s
	device.LIDs = s
	device.Container = s
}

func (s *Store) PutDevice(ctx context.Context, device *store.Device) error {
	if device.ID == nil {
		return fmt.Errorf("device jid must be known before it is stored")
	}
	sd := storedDevice{
		NoiseKey:              device.NoiseKey.Priv[:],
		IdentityKey:           device.IdentityKey.Priv[:],
		SignedPreKey:          device.SignedPreKey.Priv[:],
		SignedPreKeyID:        device.SignedPreKey.KeyID,
		RegistrationID:        device.RegistrationID,
		AdvSecretKey:          device.AdvSecretKey,
		ID:                    device.ID.String(),
		Platform:              device.Platform,
		BusinessName:          device.BusinessName,
		PushName:              device.PushName,
		LIDMigrationTimestamp: device.LIDMigrationTimestamp,
	}
	s.keepPushName(sd.PushName)
	if device.SignedPreKey.Signature != nil {
		sd.SignedPreKeySig = device.SignedPreKey.Signature[:]
	}
	if !device.LID.IsEmpty() {
		sd.LID = device.LID.String()
	}
	if device.Account != nil {
		raw, err := proto.Marshal(device.Account)
		if err != nil {
			return err
		}
		sd.Account = raw
	}
	device.Initialized = true
	return s.kv.PutOne(ctx, "device", deviceID, sd)
}

// DeleteDevice is logout: everything the session kept goes.
func (s *Store) DeleteDevice(ctx context.Context, device *store.Device) error {
	s.keepPushName("")
	return s.kv.Clear(ctx)
}

// --- identities and sessions (signal addresses "user[_agent]:device") ---

func (s *Store) PutIdentity(ctx context.Context, address string, key [32]byte) error {
	return s.kv.PutOne(ctx, "identity", address, key[:])
}

func (s *Store) DeleteAllIdentities(ctx context.Context, phone string) error {
	return s.kv.Delete(ctx, "identity", s.kv.IDs("identity", phone+":")...)
}

func (s *Store) DeleteIdentity(ctx context.Context, address string) error {
	return s.kv.Delete(ctx, "identity", address)
}

func (s *Store) IsTrustedIdentity(ctx context.Context, address string, key [32]byte) (bool, error) {
	var stored []byte
	found, err := s.kv.Get("identity", address, &stored)
	if err != nil || !found {
		return true, err
	}
	return bytes.Equal(stored, key[:]), nil
}

func (s *Store) GetSession(ctx context.Context, address string) ([]byte, error) {
	var session []byte
	_, err := s.kv.Get("session", address, &session)
	return session, err
}

func (s *Store) HasSession(ctx context.Context, address string) (bool, error) {
	return s.kv.Has("session", address), nil
}

func (s *Store) GetManySessions(ctx context.Context, addresses []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(addresses))
	for _, address := range addresses {
		var session []byte
		found, err := s.kv.Get("session", address, &session)
		if err != nil {
			return nil, err
		}
		if found {
			out[address] = session
		} else {
			out[address] = nil
		}
	}
	return out, nil
}

func (s *Store) PutSession(ctx context.Context, address string, session []byte) error {
	return s.kv.PutOne(ctx, "session", address, session)
}

func (s *Store) PutManySessions(ctx context.Context, sessions map[string][]byte) error {
	values := make(map[string]any, len(sessions))
	for address, session := range sessions {
		values[address] = session
	}
	return s.kv.Put(ctx, "session", values)
}

func (s *Store) DeleteAllSessions(ctx context.Context, phone string) error {
	return s.kv.Delete(ctx, "session", s.kv.IDs("session", phone+":")...)
}

func (s *Store) DeleteSession(ctx context.Context, address string) error {
	return s.kv.Delete(ctx, "session", address)
}

// MigratePNToLID moves a phone number's sessions, identities and sender keys to its LID.
func (s *Store) MigratePNToLID(ctx context.Context, pn, lid types.JID) error {
	pnSignal, lidSignal := pn.SignalAddressUser(), lid.SignalAddressUser()
	for _, typ := range []string{"session", "identity"} {
		values := map[string]any{}
		for _, id := range s.kv.IDs(typ, pnSignal+":") {
			var value []byte
			if _, err := s.kv.Get(typ, id, &value); err != nil {
				return err
			}
			values[lidSignal+strings.TrimPrefix(id, pnSignal)] = value
			values[id] = nil
		}
		if err := s.kv.Put(ctx, typ, values); err != nil {
			return err
		}
	}
	values := map[string]any{}
	for _, id := range s.kv.IDs("senderkey", "") {
		group, sender, ok := strings.Cut(id, "|")
		if !ok || !strings.HasPrefix(sender, pnSignal+":") {
			continue
		}
		var value []byte
		if _, err := s.kv.Get("senderkey", id, &value); err != nil {
			return err
		}
		values[group+"|"+lidSignal+strings.TrimPrefix(sender, pnSignal)] = value
		values[id] = nil
	}
	return s.kv.Put(ctx, "senderkey", values)
}

// --- pre-keys ---

type storedPreKey struct {
	Key      []byte `json:"key"`
	Uploaded bool   `json:"uploaded"`
}

func preKeyID(id uint32) string { return strconv.FormatUint(uint64(id), 10) }

func (s *Store) preKeys() (map[uint32]storedPreKey, uint32, error) {
	all := map[uint32]storedPreKey{}
	var last uint32
	for _, id := range s.kv.IDs("prekey", "") {
		n, err := strconv.ParseUint(id, 10, 32)
		if err != nil {
			continue
		}
		var pk storedPreKey
		if _, err := s.kv.Get("prekey", id, &pk); err != nil {
			return nil, 0, err
		}
		all[uint32(n)] = pk
		last = max(last, uint32(n))
	}
	return all, last, nil
}

func toPreKey(id uint32, pk storedPreKey) *keys.PreKey {
	return &keys.PreKey{KeyPair: *keys.NewKeyPairFromPrivateKey([32]byte(pk.Key)), KeyID: id}
}

func (s *Store) GetOrGenPreKeys(ctx context.Context, count uint32) ([]*keys.PreKey, error) {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	all, last, err := s.preKeys()
	if err != nil {
		return nil, err
	}
	var out []*keys.PreKey
	for id := uint32(1); id <= last && uint32(len(out)) < count; id++ {
		if pk, ok := all[id]; ok && !pk.Uploaded {
			out = append(out, toPreKey(id, pk))
		}
	}
	fresh := map[string]any{}
	for uint32(len(out)) < count {
		last++
		key := keys.NewPreKey(last)
		fresh[preKeyID(last)] = storedPreKey{Key: key.Priv[:]}
		out = append(out, key)
	}
	return out, s.kv.Put(ctx, "prekey", fresh)
}

func (s *Store) GenOnePreKey(ctx context.Context) (*keys.PreKey, error) {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	_, last, err := s.preKeys()
	if err != nil {
		return nil, err
	}
	key := keys.NewPreKey(last + 1)
	return key, s.kv.PutOne(ctx, "prekey", preKeyID(last+1), storedPreKey{Key: key.Priv[:], Uploaded: true})
}

func (s *Store) GetPreKey(ctx context.Context, id uint32) (*keys.PreKey, error) {
	var pk storedPreKey
	found, err := s.kv.Get("prekey", preKeyID(id), &pk)
	if err != nil || !found {
		return nil, err
	}
	return toPreKey(id, pk), nil
}

func (s *Store) RemovePreKey(ctx context.Context, id uint32) error {
	return s.kv.Delete(ctx, "prekey", preKeyID(id))
}

func (s *Store) MarkPreKeysAsUploaded(ctx context.Context, upToID uint32) error {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	all, _, err := s.preKeys()
	if err != nil {
		return err
	}
	values := map[string]any{}
	for id, pk := range all {
		if id <= upToID && !pk.Uploaded {
			pk.Uploaded = true
			values[preKeyID(id)] = pk
		}
	}
	return s.kv.Put(ctx, "prekey", values)
}

func (s *Store) UploadedPreKeyCount(ctx context.Context) (int, error) {
	all, _, err := s.preKeys()
	count := 0
	for _, pk := range all {
		if pk.Uploaded {
			count++
		}
	}
	return count, err
}

// --- sender keys ---

func (s *Store) PutSenderKey(ctx context.Context, group, user string, session []byte) error {
	return s.kv.PutOne(ctx, "senderkey", group+"|"+user, session)
}

func (s *Store) GetSenderKey(ctx context.Context, group, user string) ([]byte, error) {
	var session []byte
	_, err := s.kv.Get("senderkey", group+"|"+user, &session)
	return session, err
}

// --- app state ---

func (s *Store) PutAppStateSyncKey(ctx context.Context, id []byte, key store.AppStateSyncKey) error {
	return s.kv.PutOne(ctx, "appstatekey", hex.EncodeToString(id), key)
}

func (s *Store) GetAppStateSyncKey(ctx context.Context, id []byte) (*store.AppStateSyncKey, error) {
	var key store.AppStateSyncKey
	found, err := s.kv.Get("appstatekey", hex.EncodeToString(id), &key)
	if err != nil || !found {
		return nil, err
	}
	return &key, nil
}

func (s *Store) GetLatestAppStateSyncKeyID(ctx context.Context) ([]byte, error) {
	var latest []byte
	var latestTime int64 = -1
	for _, id := range s.kv.IDs("appstatekey", "") {
		var key store.AppStateSyncKey
		if _, err := s.kv.Get("appstatekey", id, &key); err != nil {
			return nil, err
		}
		if key.Timestamp > latestTime {
			latestTime = key.Timestamp
			latest, _ = hex.DecodeString(id)
		}
	}
	return latest, nil
}

type storedAppStateVersion struct {
	Version uint64 `json:"version"`
	Hash    []byte `json:"hash"`
}

func (s *Store) PutAppStateVersion(ctx context.Context, name string, version uint64, hash [128]byte) error {
	return s.kv.PutOne(ctx, "appstateversion", name, storedAppStateVersion{Version: version, Hash: hash[:]})
}

func (s *Store) GetAppStateVersion(ctx context.Context, name string) (uint64, [128]byte, error) {
	var v storedAppStateVersion
	found, err := s.kv.Get("appstateversion", name, &v)
	if err != nil || !found || len(v.Hash) != 128 {
		if err == nil && s.appStateRead != nil {
			s.appStateRead(name, 0)
		}
		return 0, [128]byte{}, err
	}
	if s.appStateRead != nil {
		s.appStateRead(name, v.Version)
	}
	return v.Version, [128]byte(v.Hash), nil
}

func (s *Store) DeleteAppStateVersion(ctx context.Context, name string) error {
	if err := s.kv.Delete(ctx, "appstateversion", name); err != nil {
		return err
	}
	return s.kv.Delete(ctx, "appstatemac", s.kv.IDs("appstatemac", name+"|")...)
}

func macID(name string, indexMAC []byte) string {
	return name + "|" + base64.RawURLEncoding.EncodeToString(indexMAC)
}

func (s *Store) PutAppStateMutationMACs(ctx context.Context, name string, version uint64, mutations []store.AppStateMutationMAC) error {
	values := make(map[string]any, len(mutations))
	for _, m := range mutations {
		values[macID(name, m.IndexMAC)] = m.ValueMAC
	}
	return s.kv.Put(ctx, "appstatemac", values)
}

func (s *Store) DeleteAppStateMutationMACs(ctx context.Context, name string, indexMACs [][]byte) error {
	ids := make([]string, 0, len(indexMACs))
	for _, index := range indexMACs {
		ids = append(ids, macID(name, index))
	}
	return s.kv.Delete(ctx, "appstatemac", ids...)
}

func (s *Store) GetAppStateMutationMAC(ctx context.Context, name string, indexMAC []byte) ([]byte, error) {
	var value []byte
	_, err := s.kv.Get("appstatemac", macID(name, indexMAC), &value)
	return value, err
}

// --- contacts and chat settings ---

type storedContact struct {
	FirstName     string `json:"firstName,omitempty"`
	FullName      string `json:"fullName,omitempty"`
	PushName      string `json:"pushName,omitempty"`
	BusinessName  string `json:"businessName,omitempty"`
	RedactedPhone string `json:"redactedPhone,omitempty"`
}

func (s *Store) contact(user types.JID) (storedContact, bool, error) {
	var c storedContact
	found, err := s.kv.Get("contact", user.String(), &c)
	return c, found, err
}

func (s *Store) updateContact(ctx context.Context, user types.JID, change func(*storedContact) bool) (bool, error) {
	c, _, err := s.contact(user)
	if err != nil {
		return false, err
	}
	if !change(&c) {
		return false, nil
	}
	return true, s.kv.PutOne(ctx, "contact", user.String(), c)
}

func (s *Store) PutPushName(ctx context.Context, user types.JID, pushName string) (bool, string, error) {
	var previous string
	changed, err := s.updateContact(ctx, user, func(c *storedContact) bool {
		previous = c.PushName
		c.PushName = pushName
		return previous != pushName
	})
	if !changed {
		previous = ""
	}
	return changed, previous, err
}

func (s *Store) PutBusinessName(ctx context.Context, user types.JID, businessName string) (bool, string, error) {
	var previous string
	changed, err := s.updateContact(ctx, user, func(c *storedContact) bool {
		previous = c.BusinessName
		c.BusinessName = businessName
		return previous != businessName
	})
	if !changed {
		previous = ""
	}
	return changed, previous, err
}

// PutContactName: whatsmeow passes the first name first (its SQL store and its app state handler
// agree on that order; only the interface's parameter names say otherwise).
func (s *Store) PutContactName(ctx context.Context, user types.JID, firstName, fullName string) error {
	_, err := s.updateContact(ctx, user, func(c *storedContact) bool {
		changed := c.FullName != fullName || c.FirstName != firstName
		c.FullName, c.FirstName = fullName, firstName
		return changed
	})
	return err
}

func (s *Store) PutAllContactNames(ctx context.Context, contacts []store.ContactEntry) error {
	values := map[string]any{}
	for _, entry := range contacts {
		c, _, err := s.contact(entry.JID)
		if err != nil {
			return err
		}
		c.FirstName, c.FullName = entry.FirstName, entry.FullName
		values[entry.JID.String()] = c
	}
	return s.kv.Put(ctx, "contact", values)
}

func (s *Store) PutManyRedactedPhones(ctx context.Context, entries []store.RedactedPhoneEntry) error {
	values := map[string]any{}
	for _, entry := range entries {
		c, _, err := s.contact(entry.JID)
		if err != nil {
			return err
		}
		c.RedactedPhone = entry.RedactedPhone
		values[entry.JID.String()] = c
	}
	return s.kv.Put(ctx, "contact", values)
}

func (c storedContact) info(found bool) types.ContactInfo {
	return types.ContactInfo{
		Found: found, FirstName: c.FirstName, FullName: c.FullName, PushName: c.PushName,
		BusinessName: c.BusinessName, RedactedPhone: c.RedactedPhone,
	}
}

func (s *Store) GetContact(ctx context.Context, user types.JID) (types.ContactInfo, error) {
	c, found, err := s.contact(user)
	return c.info(found), err
}

func (s *Store) GetAllContacts(ctx context.Context) (map[types.JID]types.ContactInfo, error) {
	out := map[types.JID]types.ContactInfo{}
	// A status sent to the contacts it names: whatsmeow takes its viewers from here (stories.go).
	if viewers, ok := statusViewers(ctx); ok {
		for _, jid := range viewers {
			out[jid] = types.ContactInfo{Found: true, FullName: jid.User}
		}
		return out, nil
	}
	for _, id := range s.kv.IDs("contact", "") {
		jid, err := types.ParseJID(id)
		if err != nil {
			continue
		}
		var c storedContact
		if _, err := s.kv.Get("contact", id, &c); err != nil {
			return nil, err
		}
		out[jid] = c.info(true)
	}
	return out, nil
}

type storedChatSettings struct {
	MutedUntil int64 `json:"mutedUntil,omitempty"`
	Pinned     bool  `json:"pinned,omitempty"`
	Archived   bool  `json:"archived,omitempty"`
}

func (s *Store) updateChat(ctx context.Context, chat types.JID, change func(*storedChatSettings)) error {
	var cs storedChatSettings
	if _, err := s.kv.Get("chatsettings", chat.String(), &cs); err != nil {
		return err
	}
	change(&cs)
	return s.kv.PutOne(ctx, "chatsettings", chat.String(), cs)
}

func (s *Store) PutMutedUntil(ctx context.Context, chat types.JID, mutedUntil time.Time) error {
	return s.updateChat(ctx, chat, func(cs *storedChatSettings) {
		cs.MutedUntil = 0
		if !mutedUntil.IsZero() {
			cs.MutedUntil = mutedUntil.Unix()
		}
	})
}

func (s *Store) PutPinned(ctx context.Context, chat types.JID, pinned bool) error {
	return s.updateChat(ctx, chat, func(cs *storedChatSettings) { cs.Pinned = pinned })
}

func (s *Store) PutArchived(ctx context.Context, chat types.JID, archived bool) error {
	return s.updateChat(ctx, chat, func(cs *storedChatSettings) { cs.Archived = archived })
}

func (s *Store) GetChatSettings(ctx context.Context, chat types.JID) (types.LocalChatSettings, error) {
	var cs storedChatSettings
	found, err := s.kv.Get("chatsettings", chat.String(), &cs)
	out := types.LocalChatSettings{Found: found, Pinned: cs.Pinned, Archived: cs.Archived}
	if cs.MutedUntil != 0 {
		out.MutedUntil = time.Unix(cs.MutedUntil, 0)
	}
	return out, err
}

// --- message secrets, privacy tokens ---

type storedSecret struct {
	Sender string `json:"sender"`
	Secret []byte `json:"secret"`
}

func secretID(chat types.JID, id types.MessageID) string { return chat.ToNonAD().String() + "|" + id }

func (s *Store) PutMessageSecrets(ctx context.Context, inserts []store.MessageSecretInsert) error {
	values := map[string]any{}
	for _, in := range inserts {
		if s.kv.Has("msgsecret", secretID(in.Chat, in.ID)) {
			continue
		}
		values[secretID(in.Chat, in.ID)] = storedSecret{Sender: in.Sender.ToNonAD().String(), Secret: in.Secret}
	}
	return s.kv.Put(ctx, "msgsecret", values)
}

func (s *Store) PutMessageSecret(ctx context.Context, chat, sender types.JID, id types.MessageID, secret []byte) error {
	return s.PutMessageSecrets(ctx, []store.MessageSecretInsert{{Chat: chat, Sender: sender, ID: id, Secret: secret}})
}

func (s *Store) GetMessageSecret(ctx context.Context, chat, sender types.JID, id types.MessageID) ([]byte, types.JID, error) {
	var ss storedSecret
	found, err := s.kv.Get("msgsecret", secretID(chat, id), &ss)
	if err != nil || !found {
		return nil, types.EmptyJID, err
	}
	realSender, _ := types.ParseJID(ss.Sender)
	return ss.Secret, realSender, nil
}

type storedToken struct {
	Token     []byte `json:"token"`
	Timestamp int64  `json:"timestamp"`
}

func (s *Store) PutPrivacyTokens(ctx context.Context, tokens ...store.PrivacyToken) error {
	values := map[string]any{}
	for _, t := range tokens {
		values[t.User.ToNonAD().String()] = storedToken{Token: t.Token, Timestamp: t.Timestamp.Unix()}
	}
	return s.kv.Put(ctx, "privacytoken", values)
}

func (s *Store) GetPrivacyToken(ctx context.Context, user types.JID) (*store.PrivacyToken, error) {
	candidates := []types.JID{user.ToNonAD()}
	if alt, err := s.altJID(ctx, user); err == nil && !alt.IsEmpty() {
		candidates = append(candidates, alt)
	}
	var best *store.PrivacyToken
	for _, jid := range candidates {
		var t storedToken
		found, err := s.kv.Get("privacytoken", jid.String(), &t)
		if err != nil {
			return nil, err
		}
		if found && (best == nil || t.Timestamp > best.Timestamp.Unix()) {
			best = &store.PrivacyToken{User: jid, Token: t.Token, Timestamp: time.Unix(t.Timestamp, 0)}
		}
	}
	return best, nil
}

func (s *Store) altJID(ctx context.Context, jid types.JID) (types.JID, error) {
	switch jid.Server {
	case types.HiddenUserServer:
		return s.GetPNForLID(ctx, jid)
	case types.DefaultUserServer:
		return s.GetLIDForPN(ctx, jid)
	}
	return types.EmptyJID, nil
}

// --- event buffer (decrypted messages not yet handled, so a retry is not decrypted twice) ---

type storedEvent struct {
	Plaintext  []byte `json:"plaintext,omitempty"`
	InsertTime int64  `json:"insertTime"`
	ServerTime int64  `json:"serverTime"`
}

func (s *Store) GetBufferedEvent(ctx context.Context, hash [32]byte) (*store.BufferedEvent, error) {
	var e storedEvent
	found, err := s.kv.Get("eventbuffer", hex.EncodeToString(hash[:]), &e)
	if err != nil || !found {
		return nil, err
	}
	return &store.BufferedEvent{Plaintext: e.Plaintext, InsertTime: time.UnixMilli(e.InsertTime), ServerTime: time.UnixMilli(e.ServerTime)}, nil
}

func (s *Store) PutBufferedEvent(ctx context.Context, hash [32]byte, plaintext []byte, serverTime time.Time) error {
	return s.kv.PutOne(ctx, "eventbuffer", hex.EncodeToString(hash[:]), storedEvent{
		Plaintext: plaintext, InsertTime: time.Now().UnixMilli(), ServerTime: serverTime.UnixMilli(),
	})
}

// DoDecryptionTxn runs one decryption at a time: the writes go to the host as they happen.
func (s *Store) DoDecryptionTxn(ctx context.Context, fn func(context.Context) error) error {
	s.txnMu.Lock()
	defer s.txnMu.Unlock()
	return fn(ctx)
}

func (s *Store) ClearBufferedEventPlaintext(ctx context.Context, hash [32]byte) error {
	var e storedEvent
	found, err := s.kv.Get("eventbuffer", hex.EncodeToString(hash[:]), &e)
	if err != nil || !found {
		return err
	}
	e.Plaintext = nil
	return s.kv.PutOne(ctx, "eventbuffer", hex.EncodeToString(hash[:]), e)
}

func (s *Store) DeleteOldBufferedHashes(ctx context.Context) error {
	cutoff := time.Now().Add(-14 * 24 * time.Hour).UnixMilli()
	var old []string
	for _, id := range s.kv.IDs("eventbuffer", "") {
		var e storedEvent
		if _, err := s.kv.Get("eventbuffer", id, &e); err == nil && e.InsertTime < cutoff {
			old = append(old, id)
		}
	}
	return s.kv.Delete(ctx, "eventbuffer", old...)
}

// --- LID map: "lid:<user>" -> pn user, "pn:<user>" -> lid user ---

func (s *Store) PutManyLIDMappings(ctx context.Context, mappings []store.LIDMapping) error {
	values := map[string]any{}
	for _, m := range mappings {
		if m.LID.Server != types.HiddenUserServer || m.PN.Server != types.DefaultUserServer {
			continue
		}
		var oldPN string
		if found, _ := s.kv.Get("lid", "lid:"+m.LID.User, &oldPN); found && oldPN != m.PN.User {
			values["pn:"+oldPN] = nil
		}
		var oldLID string
		if found, _ := s.kv.Get("lid", "pn:"+m.PN.User, &oldLID); found && oldLID != m.LID.User {
			values["lid:"+oldLID] = nil
		}
		values["lid:"+m.LID.User] = m.PN.User
		values["pn:"+m.PN.User] = m.LID.User
	}
	return s.kv.Put(ctx, "lid", values)
}

func (s *Store) PutLIDMapping(ctx context.Context, lid, jid types.JID) error {
	return s.PutManyLIDMappings(ctx, []store.LIDMapping{{LID: lid, PN: jid}})
}

func (s *Store) GetPNForLID(ctx context.Context, lid types.JID) (types.JID, error) {
	var user string
	found, err := s.kv.Get("lid", "lid:"+lid.User, &user)
	if err != nil || !found {
		return types.EmptyJID, err
	}
	return types.JID{User: user, Device: lid.Device, Server: types.DefaultUserServer}, nil
}

func (s *Store) GetLIDForPN(ctx context.Context, pn types.JID) (types.JID, error) {
	var user string
	found, err := s.kv.Get("lid", "pn:"+pn.User, &user)
	if err != nil || !found {
		return types.EmptyJID, err
	}
	return types.JID{User: user, Device: pn.Device, Server: types.HiddenUserServer}, nil
}

func (s *Store) GetManyLIDsForPNs(ctx context.Context, pns []types.JID) (map[types.JID]types.JID, error) {
	out := map[types.JID]types.JID{}
	for _, pn := range pns {
		lid, err := s.GetLIDForPN(ctx, pn)
		if err != nil {
			return nil, err
		}
		if !lid.IsEmpty() {
			out[pn] = lid
		}
	}
	return out, nil
}
