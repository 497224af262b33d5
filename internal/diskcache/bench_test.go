package diskcache_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// BenchmarkFirstOpen is what a process's first call pays to open the
// shared cache (the file is opened lazily, on that call, not at start):
// opening, WAL mode, the schema, and one lookup. "new" creates the file;
// "existing" opens one another process made.
func BenchmarkFirstOpen(b *testing.B) {
	cfg, _, err := core.NewConfig(core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	eng := core.NewEngine(core.Env{})
	key, _ := eng.WorkKey(core.Operation{Kind: core.KindFetch, Config: cfg, APIKey: testKey, URL: "https://go.dev/"})
	open := func(path string) {
		db := localdb.New(path, b.Logf, diskcache.Schema, diskcache.SchemaIndex)
		diskcache.New(db, cfg).Get(context.Background(), key, testKey, core.KindFetch)
		if !db.Opened() {
			b.Fatal("the database did not open")
		}
		db.Close()
	}
	b.Run("new", func(b *testing.B) {
		dir := b.TempDir()
		for i := 0; b.Loop(); i++ {
			open(filepath.Join(dir, "shared"+strconv.Itoa(i)+".db"))
		}
	})
	b.Run("existing", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "shared.db")
		open(path)
		for b.Loop() {
			open(path)
		}
	})
}
