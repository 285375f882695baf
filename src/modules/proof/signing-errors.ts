export class SigningNotConfiguredError extends Error {
  constructor() {
    super('SIGNING_KEYS_SECRET is not set: this process cannot sign credentials or PDFs');
  }
}
