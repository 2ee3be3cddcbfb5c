// The team's console users, for its admins (docs/users.md).
import listUsers from './list-users.js';
import inviteUser from './invite-user.js';
import updateUser from './update-user.js';
import resetUser from './reset-user.js';

export const userRoutes = [listUsers, inviteUser, updateUser, resetUser] as const;
