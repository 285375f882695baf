import { createTenant, type Tenant, type TestApp } from '../helpers/app.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';

// The dashboard side of the imports' tests: a signed-in user of a fresh tenant, and a CSV uploaded
// as the upload page does it.

const PASSWORD = 'correct horse battery staple';
let counter = 0;

export async function signedInUser(
  t: TestApp,
  opts: { monthlyLimit?: number; plan?: string } = {},
): Promise<{ tenant: Tenant; client: FormClient }> {
  // On a named plan, the plan's limit; otherwise the account's own (100,000 unless told).
  const tenant = await createTenant(
    t.deps,
    opts.plan ? { plan: opts.plan } : { monthlyLimit: opts.monthlyLimit ?? 100_000 },
  );
  const email = `imports-${process.pid}-${Date.now()}-${++counter}@academy.test`;
  await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
  const client = formClient(t);
  await signInWith(client, email, PASSWORD);
  return { tenant, client };
}

export async function uploadCsv(client: FormClient, tenant: Tenant, content: string) {
  await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
  return client.upload(
    '/dashboard/certificates/upload',
    { templateId: tenant.templateId },
    { name: 'roster.csv', content },
  );
}
