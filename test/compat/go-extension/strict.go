package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"

	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
)

// DecodeStrict decodes JSON into an upstream type the way kube-apiserver's strict field validation does: unknown and
// duplicate fields are errors, and field names are case-sensitive.
func DecodeStrict(data []byte, into any) error {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strictErrs) > 0 {
		return fmt.Errorf("strict decoding error: %w", errors.Join(strictErrs...))
	}
	return nil
}

// strictHandler rejects, before upstream's handler sees it, a hook request that does not decode strictly into the
// hook's upstream request type: a 400 naming the fields, which the manager reports as a failed call. Upstream's
// server decodes leniently (encoding/json); this mode proves the manager sends only fields upstream's types have.
func strictHandler(path string, newRequest func() (runtime.Object, error), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 20<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req, err := newRequest()
		if err == nil {
			err = DecodeStrict(body, req)
		}
		if err != nil {
			http.Error(w, fmt.Sprintf("request for %s does not decode strictly: %v", path, err), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// strictRequestTypes maps each handler path of `hooks` to a constructor of the hook's request type.
func strictRequestTypes(catalog *runtimecatalog.Catalog, hooks map[string]runtimecatalog.Hook) (map[string]func() (runtime.Object, error), error) {
	out := map[string]func() (runtime.Object, error){}
	for name, hook := range hooks {
		gvh, err := catalog.GroupVersionHook(hook)
		if err != nil {
			return nil, err
		}
		out[runtimecatalog.GVHToPath(gvh, name)] = func() (runtime.Object, error) { return catalog.NewRequest(gvh) }
	}
	return out, nil
}
