package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// startMock serves the mock Source on a loopback port, with the scenario
// played to its end so that every kind of document it publishes exists,
// and returns the Source Description's URL.
func startMock(ctx context.Context, name string) (entry string, stop func(), err error) {
	sc, err := scenario.Load(name)
	if err != nil {
		return "", nil, err
	}
	src, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
	if err != nil {
		return "", nil, err
	}
	if err := src.PlayToEnd(); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	base := "http://" + ln.Addr().String()
	src.SetBaseURL(base)
	srv := &http.Server{Handler: src.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return base + "/.well-known/resourcesync", func() { srv.Close() }, nil
}
