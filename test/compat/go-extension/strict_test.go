package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// --strict-requests: a request with a field upstream's type lacks gets a 400 naming it; a valid one reaches the
// handler with its body intact.
func TestStrictHandler(t *testing.T) {
	catalog := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(catalog); err != nil {
		t.Fatal(err)
	}
	types, err := strictRequestTypes(catalog, map[string]runtimecatalog.Hook{"update-machine": runtimehooksv1.UpdateMachine})
	if err != nil {
		t.Fatal(err)
	}
	path := "/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/update-machine"
	newRequest, ok := types[path]
	if !ok {
		t.Fatalf("no request type for %s: %v", path, types)
	}
	var seen string
	h := strictHandler(path, newRequest, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
	}))
	valid := string(readFixture(t, "updatemachine-request"))
	for _, tc := range []struct {
		body, wantErr string
		code          int
	}{
		{valid, "", http.StatusOK},
		{strings.Replace(valid, `"clusterName": "c1",`, `"clusterName": "c1", "nodeName": "n",`, 1), `unknown field "desired.machine.spec.nodeName"`, http.StatusBadRequest},
	} {
		seen = ""
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(tc.body)))
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.wantErr) {
			t.Errorf("code %d body %q, want %d with %q", rec.Code, rec.Body.String(), tc.code, tc.wantErr)
		}
		if tc.code == http.StatusOK && seen != tc.body {
			t.Errorf("handler saw %q", seen)
		}
	}
}
