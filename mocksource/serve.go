package mocksource

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve serves the Source on ln until ctx is done, then shuts down,
// giving requests in flight up to five seconds. It returns nil after a
// shutdown caused by ctx, or the server's error. When no base URL was set
// it is taken from each request's Host.
func (s *Source) Serve(ctx context.Context, ln net.Listener) error {
	return serve(ctx, ln, s.Handler())
}

// ServeOrigin2 serves the Source's second origin (Origin2Handler) on ln
// as Serve serves the first.
func (s *Source) ServeOrigin2(ctx context.Context, ln net.Listener) error {
	return serve(ctx, ln, s.Origin2Handler())
}

func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
