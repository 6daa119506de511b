package natshost

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

const (
	downloadMaxBytes = 32 << 20
	downloadTimeout  = 8 * time.Second
	octetStream      = "application/octet-stream"
)

// fileParams resolves the file of a send (engine-pod/src/media/resolve-file.ts): base64 `data`
// as it is, or downloaded from `url` (http and https only) and given to the engine as data. A
// failure is INVALID naming `<field>.data` or `<field>.url`.
func fileParams(field string) func(map[string]any) (any, error) {
	return fileParamsNamed(field, field)
}

// fileParamsNamed is fileParams for the file under key, named field in refusals (a file inside
// an object: `preview.image`).
func fileParamsNamed(key, field string) func(map[string]any) (any, error) {
	return func(args map[string]any) (any, error) {
		file, _ := args[key].(map[string]any)
		if file == nil {
			return nil, invalidField(field, "give url (http or https) or data (base64)")
		}
		resolved := map[string]any{"mimetype": octetStream, "filename": file["filename"]}
		if mimetype, ok := file["mimetype"].(string); ok {
			resolved["mimetype"] = mimetype
		}
		if data, ok := file["data"].(string); ok {
			if _, err := base64.StdEncoding.DecodeString(data); err != nil {
				return nil, invalidField(field+".data", "must be base64")
			}
			resolved["data"] = data
		} else {
			raw, _ := file["url"].(string)
			data, contentType, name, err := download(raw, field+".url")
			if err != nil {
				return nil, err
			}
			resolved["data"] = base64.StdEncoding.EncodeToString(data)
			if _, ok := file["mimetype"].(string); !ok && contentType != "" {
				resolved["mimetype"] = contentType
			}
			if file["filename"] == nil && name != "" {
				resolved["filename"] = name
			}
		}
		params := map[string]any{}
		for key, value := range args {
			params[key] = value
		}
		params[key] = resolved
		return params, nil
	}
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

func download(raw, field string) ([]byte, string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", "", invalidField(field, "must be an http or https URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), downloadTimeout)
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
