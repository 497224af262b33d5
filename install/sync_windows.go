package install

import "io/fs"

// syncDir is a no-op on Windows, where a directory cannot be opened for
// FlushFileBuffers and a rename is made durable with the file.
func syncDir(string) error { return nil }

// foreignOwner is not checked on Windows: access control lists decide, and
// the write itself reports a refusal.
func foreignOwner(fs.FileInfo) (string, bool) { return "", false }
