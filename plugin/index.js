// OpenCode probes <dir>/server then <dir>/index; both lead to the same plugin.
export { default } from "./server.js"
