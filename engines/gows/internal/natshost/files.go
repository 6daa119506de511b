package natshost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

const (
	downloadMaxBytes = 32 << 20
	downloadTimeout  = 8 * time.Second
	octetStream      = "application/octet-stream"
)

// withFile: params P (a send's, with its file resolved) from the op's args: the file at field
// resolved (resolveFile), then the args with it in its place decoded into P.
func withFile[P any](field string) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var given map[string]json.RawMessage
		if err := rpcschema.Decode(raw, &given); err != nil {
			return nil, invalidArgs(err)
		}
		if len(given[field]) == 0 || string(given[field]) == "null" {
			return nil, invalidField(field, "give url (http or https) or data (base64)")
		}
		var ref rpcschema.RemoteOrBinaryFile
		if err := rpcschema.Decode(given[field], &ref); err != nil {
			inner, _ := err.(*rpcschema.FieldError)
			return nil, invalidArgs(&rpcschema.FieldError{Field: strings.TrimSuffix(field+"."+inner.Field, "."), Reason: inner.Reason})
		}
		resolved, err := resolveFile(ctx, ref, field)
		if err != nil {
			return nil, err
		}
		if given[field], err = json.Marshal(resolved); err != nil {
			return nil, err
		}
		withResolved, err := json.Marshal(given)
		if err != nil {
			return nil, err
		}
		var params P
		if err := rpcschema.Decode(withResolved, &params); err != nil {
			return nil, invalidArgs(err)
		}
		return params, nil
	}
}

// resolveFile resolves a file of a command (engine-pod/src/media/resolve-file.ts): base64 `data`
// as it is, or downloaded from `url` (http and https only) and given to the engine as data. A
// failure is INVALID naming `<field>.data` or `<field>.url`.
func resolveFile(ctx context.Context, file rpcschema.RemoteOrBinaryFile, field string) (rpcschema.EngineFile, error) {
	resolved := rpcschema.EngineFile{Mimetype: file.Mimetype, Filename: file.Filename}
	if resolved.Mimetype == "" {
		resolved.Mimetype = octetStream
	}
	if file.Data != nil {
		if _, err := base64.StdEncoding.DecodeString(*file.Data); err != nil {
			return resolved, invalidField(field+".data", "must be base64")
		}
		resolved.Data = *file.Data
		return resolved, nil
	}
	if file.URL == nil {
		return resolved, invalidField(field, "give url (http or https) or data (base64)")
	}
	data, contentType, name, err := download(ctx, *file.URL, field+".url")
	if err != nil {
		return resolved, err
	}
	resolved.Data = base64.StdEncoding.EncodeToString(data)
	if file.Mimetype == "" && contentType != "" {
		resolved.Mimetype = contentType
	}
	if file.Filename == nil && name != "" {
		resolved.Filename = &name
	}
	return resolved, nil
}

func invalidField(field, reason string) *CommandError {
	return &CommandError{Code: hostapi.Invalid, Message: fmt.Sprintf("%s: %s", field, reason), Details: map[string]any{"issues": []map[string]string{{"path": field, "reason": reason}}}}
}

// downloads: every connection checked against the outbound address policy (outbound.go), the
// redirects' too; the built-in rules until the pod sets the one its variables name.
var downloads = downloadClient(mustOutboundPolicy(NewOutboundPolicy("", "")))

func downloadClient(policy *OutboundPolicy) *http.Client {
	dialer := &net.Dialer{Timeout: downloadTimeout}
	return &http.Client{Timeout: downloadTimeout, Transport: &http.Transport{DialContext: policy.DialContext(dialer), Proxy: nil}}
}

// useOutboundPolicy: SWITCHBOARD_OUTBOUND_DENY and _ALLOW over the built-in rules, for the pod's downloads.
func useOutboundPolicy(policy *OutboundPolicy) {
	if policy != nil {
		downloads = downloadClient(policy)
	}
}

func mustOutboundPolicy(policy *OutboundPolicy, err error) *OutboundPolicy {
	if err != nil {
		panic(err)
	}
	return policy
}

func download(ctx context.Context, raw, field string) ([]byte, string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", "", invalidField(field, "must be an http or https URL")
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	request, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	response, err := downloads.Do(request)
	if err != nil {
		var blocked *BlockedAddressError
		var urlErr *url.Error
		if errors.As(err, &blocked) {
			err = blocked
		} else if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return nil, "", "", invalidField(field, "could not be downloaded: "+err.Error())
	}
	defer response.Body.Close()
	if response.StatusCode < 200 || response.StatusCode > 299 {
		return nil, "", "", invalidField(field, fmt.Sprintf("could not be downloaded: the server answered %d", response.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(response.Body, downloadMaxBytes+1))
	if err != nil {
		return nil, "", "", invalidField(field, "could not be downloaded: "+err.Error())
	}
	if len(data) > downloadMaxBytes {
		return nil, "", "", invalidField(field, fmt.Sprintf("could not be downloaded: larger than %d bytes", downloadMaxBytes))
	}
	contentType := ""
	if parsed, _, err := mime.ParseMediaType(response.Header.Get("Content-Type")); err == nil {
		contentType = parsed
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." {
		name = ""
	}
	return data, contentType, name, nil
}
