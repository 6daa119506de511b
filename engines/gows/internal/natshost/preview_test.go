package natshost

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// send.linkCustomPreview reaches sendLinkCustomPreview with the preview's image resolved as a
// file ({mimetype, filename, data}); a preview without one goes as it came.
func TestLinkCustomPreviewOp(t *testing.T) {
	answers := map[string]any{"sendLinkCustomPreview": map[string]any{"id": "true_1@c.us_A", "hasMedia": false, "media": nil}}
	const png = "iVBORw0KGgo="
	checkOpRoutes(t, answers, []opRoute{
		{"send.linkCustomPreview", map[string]any{"chatId": "1@c.us", "text": "see https://a.example/", "linkPreviewHighQuality": true,
			"preview": map[string]any{"url": "https://a.example/", "title": "A", "description": "", "image": map[string]any{"data": png}}}, "sendLinkCustomPreview",
			`{"chatId":"1@c.us","linkPreviewHighQuality":true,"preview":{"description":"","image":{"data":"` + png + `","mimetype":"application/octet-stream"},"title":"A","url":"https://a.example/"},"text":"see https://a.example/"}`,
			`{"hasMedia":false,"id":"true_1@c.us_A","media":null}`},
		{"send.linkCustomPreview", map[string]any{"chatId": "1@c.us", "text": "https://a.example/", "preview": map[string]any{"url": "https://a.example/", "title": "A"}},
			"sendLinkCustomPreview", `{"chatId":"1@c.us","preview":{"title":"A","url":"https://a.example/"},"text":"https://a.example/"}`,
			`{"hasMedia":false,"id":"true_1@c.us_A","media":null}`},
	})
}

func TestLinkCustomPreviewImageRefusalsNameTheField(t *testing.T) {
	var published [][]byte
	host := testHost(t, (&fakeEngine{}).call, &published)
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	_, err := c.execute(context.Background(), "send.linkCustomPreview", rawArgs(map[string]any{"chatId": "1@c.us", "text": "https://a.example/",
		"preview": map[string]any{"url": "https://a.example/", "title": "A", "image": map[string]any{"data": "not base64!"}}}))
	if refusal, ok := err.(*CommandError); !ok || refusal.Code != "INVALID" || refusal.Message != "preview.image.data: must be base64" {
		t.Fatalf("a preview image that is not base64: %v", err)
	}
}

// A preview's image by URL is downloaded as a send's file is, through the outbound policy, and a
// refusal names preview.image.url.
func TestLinkCustomPreviewImageByURLFollowsThePolicy(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
	}))
	defer server.Close()
	defer useOutboundPolicy(policyOf(t, "", ""))
	args := rawArgs(map[string]any{"chatId": "1@c.us", "text": "https://a.example/", "preview": map[string]any{"url": "https://a.example/", "title": "A",
		"image": map[string]any{"url": server.URL + "/p.png"}}})

	useOutboundPolicy(policyOf(t, "", ""))
	params, err := previewParams(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	image := params.(rpcschema.ParamsSendLinkCustomPreview).Preview.Image
	if image == nil || image.Data != base64.StdEncoding.EncodeToString(png) || image.Mimetype != "image/png" {
		t.Errorf("the downloaded image: %v", image)
	}
	useOutboundPolicy(policyOf(t, "127.0.0.0/8", ""))
	_, err = previewParams(context.Background(), args)
	var refusal *CommandError
	if !errors.As(err, &refusal) || refusal.Code != "INVALID" || !strings.HasPrefix(refusal.Message, "preview.image.url: could not be downloaded: 127.0.0.1 is denied") {
		t.Errorf("a denied address: %v", err)
	}
}
