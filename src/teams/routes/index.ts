// The key's team: read it, and change its signal thresholds.
import getCurrentTeam from './get-current-team.js';
import updateCurrentTeam from './update-current-team.js';
import getTeam from './get-team.js';

export const teamRoutes = [getCurrentTeam, updateCurrentTeam, getTeam] as const;
