/**
 * The house's import rules (README, "Layout"), checked in CI by scripts/check-imports.mjs.
 * Type-only imports count: a type is knowledge of another room.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-adapter',
      severity: 'error',
      comment:
        'src/modules/ is the domain: it declares the ports it needs (placing calls, sending SMS, post-call analysis) and imports ' +
        'no adapter (telephony, voice, rest, the document readers) and no process root (runtime, boot, app, main, the worker entry points, the CLI) nor the span export (telemetry).',
      from: { path: '^src/modules/' },
      to: { path: ['^src/(telephony|voice|rest|cli|web|documents)/', '^src/(runtime|boot|app|main|worker|telemetry)\\.ts$', '^src/jobs/(runner\\.ts|tasks/)'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle; scripts/check-imports.mjs lets a pair of files that know each other pass (an entity and its relation).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-outside-domain',
      severity: 'error',
      comment:
        'Outside the domain and the GraphQL layer (where an entity and its relation, or the context and its loaders, know each other) ' +
        'not even a pair of files may import each other: a type both need lives in a third file they both import.',
      from: { path: '^src/', pathNot: '^src/(modules|graphql)/' },
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
  },
};
