// A verification session.
import getSession from './get-session.js';

export const sessionRoutes = [getSession] as const;
