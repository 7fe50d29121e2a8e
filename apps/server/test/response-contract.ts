import responseSchemas from '@parley/protocol/responses.json';
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * Every successful answer a test receives through the harness is checked against the schema the OpenAPI
 * document publishes for its endpoint (`packages/protocol/src/responses.json`): a field the server adds,
 * drops or retypes without the endpoint table saying so fails the test that saw it.
 */
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema({ $id: 'parley-responses', components: { schemas: responseSchemas.schemas }, responses: responseSchemas.responses });

const pointer = (key: string) => encodeURIComponent(key.replaceAll('~', '~0').replaceAll('/', '~1'));
const validators = new Map<string, ReturnType<typeof ajv.getSchema>>();

export function checkResponse(method: string, path: string, data: unknown): void {
  const key = `${method} ${path.split('?')[0]}`;
  if (!(key in responseSchemas.responses)) return;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.getSchema(`parley-responses#/responses/${pointer(key)}`);
    validators.set(key, validate);
  }
  if (!validate) throw new Error(`no response schema for ${key}`);
  if (!validate(data)) {
    const errors = (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(data)'} ${error.message} ${JSON.stringify(error.params)}`,
    );
    throw new Error(`${key} answered data the OpenAPI document does not describe:\n  ${errors.slice(0, 8).join('\n  ')}`);
  }
}
