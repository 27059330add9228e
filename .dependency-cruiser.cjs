/**
 * The layering rules of Lookout (README, "Architecture"). `npm test` fails on a violation;
 * test/app/boundaries.test.ts shows that each rule catches a planted one.
 */
const PURE = '(parse|plan|blocks|cron|period|preview|card|modal|modals|help|explanation-text)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'kernel-is-pure',
      comment: 'kernel/ imports nothing of ours outside kernel/.',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: '^src/', pathNot: '^src/kernel/' },
    },
    {
      name: 'pure-files-import-only-kernel',
      comment:
        "A feature's pure files import only kernel/, the Block Kit helpers (platform/slack/kit/) and the feature's other pure files.",
      severity: 'error',
      from: { path: `^src/features/([^/]+)/${PURE}` },
      to: { path: '^src/', pathNot: [`^src/kernel/`, '^src/platform/slack/kit/', `^src/features/$1/${PURE}`] },
    },
    {
      name: 'kit-is-pure',
      comment: "The Block Kit helpers import only kernel/, Slack's rules and each other.",
      severity: 'error',
      from: { path: '^src/platform/slack/kit/' },
      to: { path: '^src/', pathNot: ['^src/kernel/', '^src/platform/slack/kit/', '^src/slack-rules/'] },
    },
    {
      name: 'slack-rules-stand-alone',
      comment: "Slack's rules (one table, shared by the product and the offline Slack) import nothing of ours.",
      severity: 'error',
      from: { path: '^src/slack-rules/' },
      to: { path: '^src/', pathNot: '^src/slack-rules/' },
    },
    {
      name: 'platform-knows-no-feature',
      comment: 'platform/ (API client, store, Slack plumbing, outbox) imports no feature and no wiring.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(features/|compose\\.ts|context\\.ts|main\\.ts|config\\.ts)' },
    },
    {
      name: 'wiring-knows-only-the-feature-list',
      comment: 'compose.ts and context.ts reach the features only through their list (features/index.ts).',
      severity: 'error',
      from: { path: '^src/(compose|context)\\.ts$' },
      to: { path: '^src/features/', pathNot: '^src/features/index\\.ts$' },
    },
    {
      name: 'listeners-import-their-feature-and-slack',
      comment:
        'Listeners import their own feature, platform/slack and kernel/; another feature only through its index.ts.',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/listeners' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/kernel/',
          '^src/platform/(slack|log|feature)',
          '^src/platform/tenancy/team\\.ts$',
          '^src/features/$1/',
          '^src/features/[^/]+/index\\.ts$',
        ],
      },
    },
    {
      name: 'features-meet-through-their-index',
      comment: "A feature reaches another only through that feature's index.ts (its definition and public types).",
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/', pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$'] },
    },
    {
      name: 'features-are-not-wiring',
      comment: 'Features do not import the wiring (compose.ts, main.ts) nor the list of features.',
      severity: 'error',
      from: { path: '^src/features/[^/]+/' },
      to: { path: '^src/(compose\\.ts|main\\.ts|features/index\\.ts)$' },
    },
    {
      name: 'product-never-imports-the-sandbox',
      comment: "The product never imports the sandbox package (packages/sandbox/), except main.ts's lazy import.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^packages/sandbox/' },
    },
    {
      name: 'main-loads-the-sandbox-lazily',
      comment:
        'main.ts loads the sandbox only with a dynamic import, so a deployment never does (it has no sandbox installed).',
      severity: 'error',
      from: { path: '^src/main\\.ts$' },
      to: { path: '^packages/sandbox/', dynamic: false },
    },
    {
      name: 'sandbox-knows-only-protocols',
      comment:
        "The demo API and the offline Slack import nothing of the product, only Slack's rules (the @lookout/slack-rules package).",
      severity: 'error',
      from: { path: '^packages/sandbox/' },
      to: { path: '^src/', pathNot: '^src/slack-rules/' },
    },
    {
      name: 'packages-declare-what-they-use',
      comment:
        "Each package (the product, the sandbox, Slack's rules) imports only npm packages its own package.json names, types included.",
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'product-runs-on-production-dependencies',
      comment:
        "The product's code imports no development dependency (a production install has none), except main.ts's lazy import of the sandbox.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'No module depends on itself through others at run time (type-only cycles are harmless).',
      severity: 'error',
      from: { path: '^(src|packages)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: 'specify',
    tsConfig: { fileName: 'tsconfig.json' },
    // The workspace packages (@lookout/sandbox, @lookout/slack-rules) are found through their package.json's exports.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
