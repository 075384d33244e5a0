# The master (and, with `agent` as the command, the agent) in one image.
FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends rclone postgresql-client mariadb-client zstd ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The plugin kit's workspaces: npm links them into node_modules, and the app runs their source.
COPY packages ./packages
RUN npm ci --omit=dev --no-audit --no-fund
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
