// Package apiclient holds a client of the JSON API generated from api/openapi.json by
// oapi-codegen, a generator users of the API run, and the test that calls a server through
// it: the document is one a client can be made from, and the answers decode into its types.
// The client is test code only (client_gen_test.go); CI checks it is current.
package apiclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../openapi.json

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"kashi/web/webtest"
)

// TestGeneratedClientCallsServer starts the real router over a real store and calls it through
// the generated client as an admin with an API token: health, the caller, a project made and
// listed, a task submitted, read and in the queue, a token made and listed, a quota request
// filed; each answer decoded into the client's types.
func TestGeneratedClientCallsServer(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+s.Token)
		return nil
	}
	c, err := NewClientWithResponses(srv.URL, WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	health, err := c.HealthWithResponse(ctx)
	if err != nil || health.JSON200 == nil || health.JSON200.Status != Ok {
		t.Fatalf("health = %v, %v %s", health.JSON200, err, health.Body)
	}
	me, err := c.GetMeWithResponse(ctx)
	if err != nil || me.JSON200 == nil || me.JSON200.Role != "admin" {
		t.Fatalf("getMe = %+v, %v %s", me.JSON200, err, me.Body)
	}

	tags := []string{"cv"}
	made, err := c.CreateProjectWithResponse(ctx, CreateProjectJSONRequestBody{Name: "speech", Tags: &tags})
	if err != nil || made.JSON201 == nil || made.JSON201.Name != "speech" || len(*made.JSON201.Tags) != 1 {
		t.Fatalf("createProject = %+v, %v %s", made.JSON201, err, made.Body)
	}
	projects, err := c.ListProjectsWithResponse(ctx)
	if err != nil || projects.JSON200 == nil {
		t.Fatalf("listProjects: %v %s", err, projects.Body)
	}
	var names []string
	for _, p := range *projects.JSON200 {
		names = append(names, p.Name)
	}
	if !contains(names, "speech") || !contains(names, "vision") {
		t.Errorf("listProjects names %v, want speech and vision", names)
	}

	submitted, err := c.SubmitTaskWithResponse(ctx, nil, SubmitTaskJSONRequestBody{Project: "vision", Name: "train", Gpus: 1,
		Command: &[]string{"python", "train.py"}, DataReady: ptr(true)})
	if err != nil || submitted.JSON201 == nil || submitted.JSON201.State != TaskStateQueued {
		t.Fatalf("submitTask = %+v, %v %s", submitted.JSON201, err, submitted.Body)
	}
	id := submitted.JSON201.Id
	got, err := c.GetTaskWithResponse(ctx, strconv.Itoa(id))
	if err != nil || got.JSON200 == nil || got.JSON200.Name != "train" || got.JSON200.Project != "vision" {
		t.Fatalf("getTask(%d) = %+v, %v %s", id, got.JSON200, err, got.Body)
	}
	queue, err := c.GetQueueWithResponse(ctx)
	if err != nil || queue.JSON200 == nil {
		t.Fatalf("getQueue: %v %s", err, queue.Body)
	}

	tok, err := c.CreateTokenWithResponse(ctx, CreateTokenJSONRequestBody{Name: ptr("ci"), Scope: ptr(TokenRequestScopeRead)})
	if err != nil || tok.JSON201 == nil || tok.JSON201.Token == "" || tok.JSON201.Scope != NewTokenScopeRead {
		t.Fatalf("createToken = %+v, %v %s", tok.JSON201, err, tok.Body)
	}
	toks, err := c.ListTokensWithResponse(ctx)
	if err != nil || toks.JSON200 == nil || len(*toks.JSON200) != 2 {
		t.Fatalf("listTokens = %+v, %v %s, want the fixture's and ci", toks.JSON200, err, toks.Body)
	}

	refused, err := c.CreateQuotaRequestWithResponse(ctx, CreateQuotaRequestJSONRequestBody{Project: "nosuch", Kind: NewQuotaRequestKindBudget})
	if err != nil || refused.StatusCode()/100 != 4 || refused.JSON4XX == nil || refused.JSON4XX.Error == "" {
		t.Fatalf("createQuotaRequest(nosuch) = %d %+v, %v %s, want a 4xx error body", refused.StatusCode(), refused.JSON4XX, err, refused.Body)
	}
}

func ptr[T any](v T) *T { return &v }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
