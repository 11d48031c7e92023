// CI's check of the house's import rules (.dependency-cruiser.cjs): the domain imports no
// adapter and no process root, and no import circle joins more than two files. Exits 1 with
// each violation named.
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs');
const { output } = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });

const seen = new Set();
const problems = [];
for (const violation of output.summary.violations) {
  if (violation.rule.name === 'no-circular') {
    const cycle = [violation.from, ...violation.cycle.map((step) => step.name)];
    // A pair of files that know each other is allowed; a circle is reported once, from its first file in order.
    const files = [...new Set(cycle)];
    if (files.length <= 2) continue;
    const key = [...files].sort().join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(`import circle of ${files.length} files: ${cycle.join(' -> ')}`);
  } else {
    problems.push(`${violation.rule.name}: ${violation.from} -> ${violation.to}`);
  }
}
for (const problem of problems) console.error(problem);
console.log(problems.length ? `${problems.length} import rule violation(s)` : 'imports: no circle of more than two files (none outside the domain and GraphQL), no adapter in the domain');
process.exit(problems.length ? 1 : 0);
