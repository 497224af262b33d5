# The team gateway (deepseek-web-retrieval serve) as an image: a static binary on
# distroless, run as a non-root user. docs/gateway.md shows how to run it and
# deploy/compose.yaml runs two replicas with Redis behind Caddy.
#
#   docker build -t deepseek-web-retrieval .
#   docker build --build-arg VERSION=0.1.0 --build-arg COMMIT="$(git rev-parse HEAD)" -t deepseek-web-retrieval .

FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first, so a change to the source does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# As `make cli` builds it: static (CGO_ENABLED=0), -trimpath. plugin/core.wasm is
# committed and embedded (make check-wasm keeps it current), so no WebAssembly build here.
# VERSION and COMMIT stamp --version as `make dist` does; empty, the binary says core's
# version and no commit (.git is not in the build context).
ARG VERSION=""
ARG COMMIT=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=${VERSION} -X main.commit=${COMMIT}" \
        -o /out/deepseek-web-retrieval ./cmd/deepseek-web-retrieval \
    && /out/deepseek-web-retrieval --version \
    && mkdir -p /out/etc/deepseek-web-retrieval

# distroless/static: CA certificates (DeepSeek is https), tzdata and /etc/passwd with the
# nonroot user (65532), no shell and no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/deepseek-web-retrieval /usr/local/bin/deepseek-web-retrieval
# The tokens directory belongs to the nonroot user, so a named volume mounted here starts
# out writable by "serve token add" run in this image (deploy/compose.yaml's token service).
COPY --from=build --chown=65532:65532 /out/etc/deepseek-web-retrieval /etc/deepseek-web-retrieval
USER 65532:65532
EXPOSE 8787
# No HEALTHCHECK: the image has no shell and no curl to run one, and the binary has no
# health subcommand. Probe GET /healthz from outside instead ("ok", or "degraded" while
# Redis is down; 200 either way): the reverse proxy's health check, a Kubernetes
# httpGet probe.
ENTRYPOINT ["/usr/local/bin/deepseek-web-retrieval", "serve"]
# Listening beyond loopback needs --tokens: the gateway refuses to start without it.
CMD ["--listen", "0.0.0.0:8787", "--tokens", "/etc/deepseek-web-retrieval/tokens.json"]
