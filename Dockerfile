# Skein container image: `docker build -t skein .` then
#   docker run -p 7700:7700 -v skein-data:/data -e MEILI_MASTER_KEY=... skein
# The commit GET /version reports comes from build arguments (the build context has no .git):
#   docker build --build-arg SKEIN_COMMIT_SHA=$(git rev-parse HEAD) --build-arg SKEIN_COMMIT_DATE=$(git log -1 --format=%cI) -t skein .
# Node 20 on Debian bookworm (glibc 2.36): the uWebSockets.js build Skein uses loads there, and the
# header-name patch of its binary (native/, src/front/uws.ts) is made for Node 20's ABI.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Dependencies first (cached while only sources change). No install script runs: tsc needs none, and
# dev dependencies with native parts (better-sqlite3) would need a compiler or a download from GitHub.
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
ARG SKEIN_COMMIT_SHA=""
ARG SKEIN_COMMIT_DATE=""
# tsc, the patched uWS binary into native/, the build stamp (dist/build-info.json).
RUN SKEIN_COMMIT_SHA="$SKEIN_COMMIT_SHA" SKEIN_COMMIT_DATE="$SKEIN_COMMIT_DATE" npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# Production dependencies only, with their install scripts: lmdb ships its binaries, roaring downloads
# one from GitHub and compiles it where it cannot (hence python3, make and g++ in this stage only).
# `prepare` and `postinstall` find no src/ and no dist/ here and do nothing.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MEILI_HTTP_ADDR=0.0.0.0:7700
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/build-info.json ./dist/build-info.json
COPY --from=build /app/native ./native
# Data lives in /data, the working folder: ./data.skein, dumps/, snapshots/ and an optional ./config.toml
# (the default paths, as Meilisearch's image does with /meili_data). The server runs as the image's
# unprivileged `node` user (uid 1000), which owns /data.
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /data
VOLUME /data
EXPOSE 7700
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const a=process.env.MEILI_HTTP_ADDR||'0.0.0.0:7700';fetch('http://127.0.0.1:'+a.slice(a.lastIndexOf(':')+1)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/src/cli.js"]
