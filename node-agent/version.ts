/** The node agent's version (`--version`); kept equal to package.json by a test, stamped by builds. */
export const NODE_AGENT_VERSION = '0.1.0';
