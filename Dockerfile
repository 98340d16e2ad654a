# rsconform in a container: no Go toolchain or libxml2 headers needed.
#
#   docker build -t rsconform --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" rsconform validate build/site
#
# It runs as uid 10001 by default and works with any uid (it needs no home
# folder and writes only where -o and --baseline say): --user makes the
# files it writes in a mounted workspace yours, and lets it write there at
# all when only you may (a CI runner's workspace).
#
# Stage 1 builds with cgo against libxml2-dev; stage 2 is a slim Debian of
# the same release with only the libxml2 run-time library.
FROM golang:1.26-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libxml2-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/rsconform ./cmd/rsconform \
 && /out/rsconform version

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libxml2 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home rsconform
COPY --from=build /out/rsconform /usr/local/bin/rsconform
USER rsconform
WORKDIR /work
ENTRYPOINT ["rsconform"]
CMD ["--help"]
