package scripted

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// modelsOwner is the owned_by of the one model the policy's GET /v1/models lists.
const modelsOwner = "webbench"

// IsPolicyEndpoint reports whether the OpenAI-compatible endpoint at baseURL (…/v1) is the scripted policy: its
// GET /models lists exactly the model ModelName owned by webbench. The policy answers any model name and needs no
// key, so a check of a real model's settings against it proves nothing. Any error (no answer within 3 s, another
// body) is false.
func IsPolicyEndpoint(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/models", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(body, &list) != nil {
		return false
	}
	return len(list.Data) == 1 && list.Data[0].ID == ModelName && list.Data[0].OwnedBy == modelsOwner
}
