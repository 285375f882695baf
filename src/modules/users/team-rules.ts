import { ConflictError, ForbiddenError } from '../../platform/errors.js';
import type { Role } from '../shared/roles.js';

// Who may change whom in a team (issue 29): an admin does everything but remove or demote an owner
// or make someone owner; only owners make owners; an account always keeps an owner. The CLI acts
// as an owner (the instance's operator at the terminal).

export function assertMayGiveRole(by: Role, role: Role): void {
  if (role === 'owner' && by !== 'owner')
    throw new ForbiddenError('Only an owner can make someone an owner.');
}

export function assertMayChange(by: Role, target: Role, what: 'remove' | 'demote'): void {
  if (target === 'owner' && by !== 'owner') {
    throw new ForbiddenError(`Only an owner can ${what} an owner.`);
  }
}

// The owners left after the change: at least one.
export function assertOwnerRemains(roles: Role[]): void {
  if (!roles.includes('owner')) {
    throw new ConflictError('An account keeps at least one owner: make someone else owner first.');
  }
}
