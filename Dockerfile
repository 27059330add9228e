# Lookout: build with dev dependencies, run with production ones only.
# docker build -t lookout . && docker run -p 3000:3000 -v lookout-data:/data --env-file lookout.env lookout

# The sandbox package (packages/sandbox) is here only so main.ts's lazy import of it typechecks:
# tsc emits none of it, and the runtime stage installs no workspace package.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sandbox/package.json ./packages/sandbox/
COPY src/slack-rules/package.json ./src/slack-rules/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY packages ./packages
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Secrets (SLACK_*, ANALYTICS_API_KEY, DATABASE_URL) come from the environment at run time, never from the image.
CMD ["node", "dist/main.js"]
