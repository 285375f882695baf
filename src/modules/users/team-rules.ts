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

// The owners left after a change to a user who is an owner: at least one. (A change to anyone else
// takes no owner away: it is allowed even on an account that has none yet, e.g. made by the CLI.)
export function assertOwnerRemains(target: Role, roles: Role[]): void {
  if (target === 'owner' && !roles.includes('owner')) {
    throw new ConflictError('An account keeps at least one owner: make someone else owner first.');
  }
}
