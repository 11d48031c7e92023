// Validates an OpenAPI document against the OpenAPI 3.1 schema with a maintained validator
// (@seriousme/openapi-schema-validator). Usage: node scripts/validate-openapi.mjs openapi.json
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';

const file = process.argv[2] ?? 'openapi.json';
const validator = new Validator();
const result = await validator.validate(JSON.parse(await readFile(file, 'utf8')));
if (!result.valid) {
  console.error(`${file} is not a valid OpenAPI ${validator.version} document:`);
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
console.log(`${file}: a valid OpenAPI ${validator.version} document`);
