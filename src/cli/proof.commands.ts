import type { PdfCertificateView, SigningKeyView } from '../modules/proof/signing-keys.service.js';
import { readBounded } from './design-file.js';
import { cliDoer, deps, id, required, type Command, type CommandContext } from './command.js';
import { CliError, print } from './output.js';

// Portable proof (docs/proof.md): the accounts' signing keys and PDF signing certificates (list,
// rotate, import; public parts only, the private keys never leave the database sealed) and the
// credentials backfill.

function line(k: SigningKeyView): string {
  return `${k.id}  ${k.current ? 'current' : `retired ${k.retiredAt}`}  created ${k.createdAt}  ${k.publicKeyMultibase}`;
}

function certificateLine(c: PdfCertificateView): string {
  return (
    `${c.id}  ${c.current ? 'current' : `retired ${c.retiredAt}`}  ${c.source}  ${c.keyType}  ` +
    `"${c.subject}"  ${Date.parse(c.validTo) <= Date.now() ? 'EXPIRED' : 'valid to'} ${c.validTo}  SHA-256 ${c.fingerprintSha256}`
  );
}

function needsSecret(ctx: CommandContext): void {
  if (!deps(ctx).services.signingKeys.canSign) {
    throw new CliError(
      'SIGNING_KEYS_SECRET is not set: it seals the signing keys (use the one the servers use; see docs/proof.md)',
      2,
    );
  }
}

export const proofCommands: Command[] = [
  {
    path: ['signing-key', 'list'],
    services: ['signingKeys'],
    usage: 'signing-key list ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const { signingKeys } = deps(ctx).services;
      const keys = await signingKeys.listKeys(accountId);
      const pdfCertificates = await signingKeys.listPdfCertificates(accountId);
      const sdJwtKeys = await signingKeys.sdJwt.published(accountId);
      const did = signingKeys.issuerDid(accountId);
      print(ctx.io, ctx.json, { did, data: keys, pdfCertificates, sdJwtKeys }, [
        `Issuer ${did}`,
        'Credential signing keys (Ed25519):',
        ...(keys.length === 0
          ? ['  none yet: one is made at the first issue']
          : keys.map((k) => `  ${line(k)}`)),
        'PDF signing certificates:',
        ...(pdfCertificates.length === 0
          ? ['  none yet: a self-signed one is made at the first issue']
          : pdfCertificates.map((c) => `  ${certificateLine(c)}`)),
        'SD-JWT VC keys (ES256):',
        ...(sdJwtKeys.length === 0
          ? ['  none yet: one is made at the first SD-JWT VC']
          : sdJwtKeys.map(
              (k) => `  ${k.kid}  ${k.current ? 'current' : 'retired'}  x ${k.jwk.x}  y ${k.jwk.y}`,
            )),
      ]);
    },
  },
  {
    path: ['signing-key', 'rotate'],
    services: ['signingKeys'],
    usage: 'signing-key rotate ACCOUNT_ID',
    positionals: ['ACCOUNT_ID'],
    async run(ctx) {
      needsSecret(ctx);
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const { signingKeys } = deps(ctx).services;
      const key = await signingKeys.rotateCredentialKey(cliDoer(), accountId);
      const pdf = await signingKeys.rotatePdfCertificate(cliDoer(), accountId);
      print(ctx.io, ctx.json, { ...key, pdfCertificate: { rotated: pdf.rotated, ...pdf.certificate } }, [
        `New current signing key ${key.id} (${key.publicKeyMultibase})`,
        'Credentials issued from now on use it, on every instance; those signed before keep verifying.',
        pdf.rotated
          ? `New self-signed PDF signing certificate ${pdf.certificate.id} ("${pdf.certificate.subject}"): PDFs issued from now on are signed with it.`
          : `The imported PDF signing certificate ${pdf.certificate.id} ("${pdf.certificate.subject}") is kept: import another to replace it.`,
      ]);
    },
  },
  {
    path: ['signing-key', 'import-pdf'],
    services: ['signingKeys'],
    usage: 'signing-key import-pdf ACCOUNT_ID --p12 FILE',
    positionals: ['ACCOUNT_ID'],
    options: { p12: { type: 'string' } },
    async run(ctx) {
      needsSecret(ctx);
      const accountId = id(ctx.args[0], 'ACCOUNT_ID');
      const file = required(ctx, 'p12');
      // pkijs is loaded by this command only.
      const { Pkcs12Error, PKCS12_MAX_BYTES } = await import('../platform/proof/pkcs12.js');
      let bytes: Buffer;
      try {
        bytes = await readBounded(file, PKCS12_MAX_BYTES, 'a PKCS#12 file');
      } catch (err) {
        if (err instanceof CliError) throw err;
        throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 2);
      }
      const passphrase = ctx.io.readSecret ? await ctx.io.readSecret('Passphrase of the PKCS#12 file: ') : '';
      let cert: PdfCertificateView;
      try {
        cert = await deps(ctx).services.signingKeys.importPkcs12(cliDoer(), accountId, bytes, passphrase);
      } catch (err) {
        if (err instanceof Pkcs12Error) throw new CliError(`${file}: ${err.message}`, 2);
        throw err;
      }
      print(ctx.io, ctx.json, cert, [
        `Imported PDF signing certificate ${cert.id}: "${cert.subject}", issued by "${cert.issuer}"`,
        `${cert.keyType} key, valid to ${cert.validTo}, ${cert.chainLength} issuer certificate(s) kept, SHA-256 ${cert.fingerprintSha256}`,
        'PDFs issued from now on are signed with it, on every instance.',
      ]);
    },
  },
  {
    path: ['credentials', 'backfill'],
    services: ['proof'],
    usage: 'credentials backfill [--account ACCOUNT_ID]',
    positionals: [],
    options: { account: { type: 'string' } },
    async run(ctx) {
      needsSecret(ctx);
      const account =
        typeof ctx.values.account === 'string' ? id(ctx.values.account, '--account') : undefined;
      const { made } = await deps(ctx).services.proof.backfill({ accountId: account });
      print(ctx.io, ctx.json, { made }, [
        made === 0
          ? 'Every certificate has its credential'
          : `Made and signed ${made} credential(s) for certificates issued before credentials existed`,
      ]);
    },
  },
];
