# The master (and, with `agent` as the command, the agent) in one image.
# First stage: the web console, built with its dev dependencies (Vite, React…), which the
# runtime image does not carry: only its static files (packages/console/dist) are copied over.
FROM node:24-bookworm-slim AS console
WORKDIR /build
COPY package.json package-lock.json .npmrc ./
COPY packages ./packages
COPY scripts/build-console.ts ./scripts/
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends rclone postgresql-client mariadb-client zstd ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The plugin kit's workspaces: npm links them into node_modules, and the app runs their source.
COPY packages ./packages
# Without dev dependencies the prepare step skips the console build (the first stage did it).
COPY scripts/build-console.ts ./scripts/
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=console /build/packages/console/dist ./packages/console/dist
COPY core ./core
COPY plugins ./plugins
COPY agent ./agent
COPY config ./config
ENV BACKPLANE_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
EXPOSE 8340
USER node
ENTRYPOINT ["node", "--max-semi-space-size=2", "core/main.ts"]
CMD ["serve"]
