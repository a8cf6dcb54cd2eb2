/** The node agent's version (`--version`): the project's release, one source in api/. */
export { VERSION as NODE_AGENT_VERSION } from '../api/version.js';
