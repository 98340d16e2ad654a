package main

import (
	"context"
	"net"
	"net/http"
	"time"
)

// startHTTPServer serves h on ln, with the limits of every server a
// command runs (serve, monitor --addr): headers read within 10 s and at
// most 64 KB, idle connections closed after 2 min. read bounds reading a
// whole request (0: no bound beyond the headers'), write a response.
// Serve's error, should it stop by itself, arrives on done; shutdown stops
// it, letting the requests in progress end within grace.
func startHTTPServer(ln net.Listener, h http.Handler, read, write, grace time.Duration) (done <-chan error, shutdown func()) {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       read,
		WriteTimeout:      write,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	return errc, func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
	}
}
