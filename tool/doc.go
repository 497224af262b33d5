// Package tool owns the two tools every host offers a model,
// deepseek_search and deepseek_fetch, apart from any one host:
//
//   - their names ([SearchName], [FetchName]), descriptions
//     ([SearchDescription], [FetchDescription]) and input schemas
//     ([SearchSchema], [FetchSchema] and the property schemas they are
//     built from);
//   - the checking of a call's arguments: [Parse] turns them into the
//     [core.Operation] they ask for, or into a message that names the tool;
//   - what hosts render of the core's results ([core.SearchResult],
//     [core.FetchResult], which carry their own JSON): the [Text] every
//     host gives the model, and a call's [Output] (that text, a [Title],
//     and [SearchMetadata], [FetchMetadata] or [PagesMetadata] for the
//     host), or a batch's ([Join]).
//
// The host adapters use it: the OpenCode plugin's plan and tools, the MCP
// server, the CLI's search and fetch, and the WebAssembly module. What differs per host,
// such as the name of the host's own search tool that a description steers
// away from, is a parameter.
//
// It is compiled into the WebAssembly module, so it writes JSON by hand
// with jsonlite rather than with encoding/json (which would link reflection
// into the module). [Output.AppendJSON] writes byte for byte what
// json.Marshal writes for the same value; FuzzOutputJSON holds them equal.
package tool
