import type { Deps } from '../deps.js';
import { countAccounts } from '../modules/accounts/accounts.repository.js';
import { readDesignFile } from './design-file.js';
import { CliError } from './output.js';
import { cliDoer } from './command.js';

// dist/examples/designs: `npm run build` copies the sample designs there (scripts/copy-assets.js).
export const DEMO_DESIGN = new URL('../../examples/designs/course-completion.json', import.meta.url);

export interface DemoResult {
  account: { id: string; name: string; plan: string };
  key: string;
  keyId: string;
  template: { id: string; name: string };
  certificate: { id: string; uniqueCode: string; verificationUrl: string };
  curl: string[];
  /** How to give the demo organisation its own name: the CLI command and the dashboard page. */
  rename: { command: string; page: string };
}

// A Business account, a key, the course-completion template and (when issuing exists) a sample
// certificate, on an empty database; prints the curl commands to try.
export async function createDemo(deps: Deps): Promise<DemoResult> {
  if ((await countAccounts(deps.db)) > 0) {
    throw new CliError('the database already has accounts: demo only runs on an empty database');
  }
  const { services, config } = deps;
  const account = await services.accounts.create({ name: 'Demo Academy', plan: 'Business' });
  const key = await services.keys.create(account.id, { name: 'demo' });
  const template = await services.templates.create(
    cliDoer(),
    account.id,
    await readDesignFile(DEMO_DESIGN.pathname),
  );
  // The sample certificate goes through the same issuing path as the API, as the new key's account.
  const principal = await services.keys.authenticate(key.key);
  const certificate = await services.issue.issueOne(principal!, template.id, {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    data: { course: 'Analytical Engines 101', hours: 12 },
  });
  const base = config.publicBaseUrl;
  const auth = `-H "Authorization: Bearer ${key.key}"`;
  const curl = [
    `curl ${auth} ${base}/api/v1/templates`,
    `curl ${auth} ${base}/api/v1/usage`,
    `curl ${auth} -H "Content-Type: application/json" -d '{"templateId":"${template.id}","recipient":{"name":"Zoë Ångström","email":"zoe@example.com","data":{"course":"Safe Lifting","hours":12}}}' ${base}/api/v1/certificates`,
    `curl ${auth} "${base}/api/v1/certificates?status=Issued&page=1&perPage=100"`,
    `curl ${auth} -o certificate.pdf ${base}/api/v1/certificates/${certificate.id}/pdf`,
    `curl ${auth} -X POST ${base}/api/v1/certificates/${certificate.id}/send`,
    `curl ${base}/api/v1/verify/${certificate.uniqueCode}`,
    `curl ${base}/api/v1/openapi.json`,
  ];
  return {
    account: { id: account.id, name: account.name, plan: account.plan },
    key: key.key,
    keyId: key.id,
    template: { id: template.id, name: template.name },
    certificate: {
      id: certificate.id,
      uniqueCode: certificate.uniqueCode,
      verificationUrl: certificate.verificationUrl,
    },
    curl,
    rename: {
      command: `npx certsvc account update ${account.id} --name "Your Organisation"`,
      page: `${base}/dashboard/settings/organisation`,
    },
  };
}

export function demoLines(demo: DemoResult): string[] {
  return [
    `Demo account: ${demo.account.name} (${demo.account.plan}) ${demo.account.id}`,
    `API key (shown only now, keep it): ${demo.key}`,
    `Template: ${demo.template.name} ${demo.template.id}`,
    `Sample certificate: ${demo.certificate.id}, open ${demo.certificate.verificationUrl}`,
    '',
    'Try:',
    ...demo.curl.map((c) => `  ${c}`),
    '',
    `"${demo.account.name}" is the issuer every certificate names. Rename the demo organisation with`,
    `  ${demo.rename.command}`,
    `or in the dashboard, Settings > Organisation: ${demo.rename.page}`,
  ];
}
