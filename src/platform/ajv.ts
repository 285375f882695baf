import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';

// The two validators: bodies strictly (no coercion, unknown fields refused by the schemas); query
// strings and path parameters, strings on the wire, coerced to the declared types.

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

// A schema marked with this keyword keeps `items` for documentation only: the service validates
// each item itself (a batch must report per-recipient failures instead of failing the request).
export const SERVICE_VALIDATED_ITEMS = 'x-items-validated-by-service';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    // Errors carry their schema, so that messages can say what is allowed (issue-messages.ts).
    verbose: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: SERVICE_VALIDATED_ITEMS });
  return ajv;
}

export const bodyAjv = makeAjv(false);
export const inputAjv = makeAjv(true);
