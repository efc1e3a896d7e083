// Misbehaviours for tests of the manager's handling of bad extensions: the HTTP handlers that upstream's server
// registers are wrapped so that their answers are broken on the wire, the way a buggy or newer extension would.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

type misbehaviour string

const (
	misbehaveNone misbehaviour = ""
	// Discovery advertises every handler at a hook version the manager's catalog does not have.
	misbehaveUnknownHookVersion misbehaviour = "unknown-hook-version"
	// UpdateMachine answers 200 with a body that is not JSON.
	misbehaveMalformedUpdateMachine misbehaviour = "malformed-update-machine"
)

// UnknownHookAPIVersion is the hook version advertised under misbehaveUnknownHookVersion.
const UnknownHookAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha99"

var misbehaviours = map[misbehaviour]bool{misbehaveUnknownHookVersion: true, misbehaveMalformedUpdateMachine: true}

func misbehaviourNames() string {
	names := make([]string, 0, len(misbehaviours))
	for m := range misbehaviours {
		names = append(names, string(m))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func parseMisbehaviour(s string) (misbehaviour, error) {
	m := misbehaviour(s)
	if m != misbehaveNone && !misbehaviours[m] {
		return m, fmt.Errorf("--misbehave=%s: want one of %s", s, misbehaviourNames())
	}
	return m, nil
}

// testServer wraps the handlers upstream's runtime server registers on its webhook server: strict request decoding
// (strict.go) and misbehaviours.
type testServer struct {
	webhook.Server
	mode   misbehaviour
	strict map[string]func() (runtime.Object, error)
}

func (s *testServer) Register(path string, hook http.Handler) {
	if newRequest, ok := s.strict[path]; ok {
		hook = strictHandler(path, newRequest, hook)
	}
	s.Server.Register(path, s.misbehave(path, hook))
}

func (s *testServer) misbehave(path string, next http.Handler) http.Handler {
	switch {
	case s.mode == misbehaveUnknownHookVersion && strings.HasSuffix(path, "/discovery"):
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			resp := &runtimehooksv1.DiscoveryResponse{}
			if err := json.Unmarshal(rec.Body.Bytes(), resp); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for i := range resp.Handlers {
				resp.Handlers[i].RequestHook.APIVersion = UnknownHookAPIVersion
			}
			body, _ := json.Marshal(resp)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(body)
		})
	case s.mode == misbehaveMalformedUpdateMachine && strings.Contains(path, "/updatemachine/"):
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			// The first half of a valid answer: what a crash mid-write leaves.
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(bytes.TrimSpace(rec.Body.Bytes())[:rec.Body.Len()/2])
		})
	}
	return next
}
