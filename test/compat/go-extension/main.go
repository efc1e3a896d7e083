// A Runtime Extension built only on upstream Cluster API's Go SDK (exp/runtime/server and the
// api/runtime/hooks/v1alpha1 types, sigs.k8s.io/cluster-api v1.14.2) serving the in-place update hooks the way
// upstream's test extension does (test/extension/main.go, setupInPlaceUpdateHookHandlers). It exists to show that
// an extension written for upstream works unchanged against this project's manager.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	"sigs.k8s.io/cluster-api/exp/runtime/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("go-extension", flag.ContinueOnError)
	// Flag names and defaults as upstream's test extension (test/extension/main.go).
	port := fs.Int("webhook-port", 9443, "Webhook Server port")
	certDir := fs.String("webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs/",
		"Webhook cert dir, only used when webhook-port is specified.")
	certName := fs.String("webhook-cert-name", "tls.crt", "Webhook cert name.")
	keyName := fs.String("webhook-key-name", "tls.key", "Webhook key name.")
	host := fs.String("webhook-host", "", "Address the webhook server listens on (default: all addresses).")
	// Upstream fakes an update as 15 s + rand(0..5) s, retrying every 5 s; tests shorten it.
	updateDuration := fs.Duration("update-duration", 15*time.Second, "How long a faked in-place update takes.")
	updateJitter := fs.Duration("update-jitter", 5*time.Second, "Random extra update time, from 0 up to this.")
	retryAfter := fs.Int("retry-after-seconds", 5, "retryAfterSeconds of UpdateMachine while an update is in progress.")
	strict := fs.Bool("strict-requests", false,
		"Answer 400 to hook requests with fields upstream's request types do not have (upstream's server ignores them).")
	misbehave := fs.String("misbehave", "", "Make the extension misbehave for tests: "+misbehaviourNames()+".")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, err := parseMisbehaviour(*misbehave)
	if err != nil {
		return err
	}

	ctrl.SetLogger(klog.Background())
	catalog := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(catalog); err != nil {
		return err
	}
	srv, err := server.New(server.Options{
		Catalog:  catalog,
		Host:     *host,
		Port:     *port,
		CertDir:  *certDir,
		CertName: *certName,
		KeyName:  *keyName,
	})
	if err != nil {
		return fmt.Errorf("creating the runtime extension webhook server: %w", err)
	}
	handlers := NewExtensionHandlers(UpdateTiming{
		Duration:          *updateDuration,
		Jitter:            *updateJitter,
		RetryAfterSeconds: int32(*retryAfter),
		Rand:              rand.Int64N,
	}, nil)
	hooks := []server.ExtensionHandler{
		{Hook: runtimehooksv1.CanUpdateMachine, Name: "can-update-machine", HandlerFunc: handlers.DoCanUpdateMachine},
		{Hook: runtimehooksv1.CanUpdateMachineSet, Name: "can-update-machineset", HandlerFunc: handlers.DoCanUpdateMachineSet},
		{Hook: runtimehooksv1.UpdateMachine, Name: "update-machine", HandlerFunc: handlers.DoUpdateMachine},
	}
	if mode != misbehaveNone || *strict {
		wrapped := &testServer{Server: srv.Server, mode: mode}
		if *strict {
			byName := map[string]runtimecatalog.Hook{}
			for _, h := range hooks {
				byName[h.Name] = h.Hook
			}
			if wrapped.strict, err = strictRequestTypes(catalog, byName); err != nil {
				return err
			}
		}
		srv.Server = wrapped
	}
	for _, h := range hooks {
		if err := srv.AddExtensionHandler(h); err != nil {
			return fmt.Errorf("adding the %s handler: %w", h.Name, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}
