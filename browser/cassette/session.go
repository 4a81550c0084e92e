package cassette

// What this process wrote into a cassette: the counts a run prints when it ends (`bench run --record` and
// `--record-missing`), kept as they happen rather than re-read from disk, since an existing cassette holds the
// tapes and blobs of earlier runs too.

// Session is what this process added to a cassette: for a recording, the tasks it recorded (their tapes
// replaced) and their entries; for a replay filling its misses (OpenFill), the misses fetched live and kept
// (Filled) and the tasks they went to (FilledTasks). NewBlobs are the response bodies stored that the cassette
// did not hold, NewBytes their size on disk (compressed, bytes), Stripped the secrets left out of the entries
// (Entry.Stripped summed), and Secrets whether the cassette keeps them.
type Session struct {
	Mode                Mode
	Tasks, Entries      int
	Filled, FilledTasks int
	NewBlobs            int
	NewBytes            int64
	Stripped            int
	Secrets             bool
}

// sessionCounts are the counters behind Session, guarded by Cassette.mu.
type sessionCounts struct {
	blobs       map[string]bool // sums of the blobs this process stored
	bytes       int64
	filled      int
	filledTasks map[string]bool
}

// Session returns what this process added to the cassette so far.
func (c *Cassette) Session() Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Session{Mode: c.mode, Tasks: len(c.tapes), NewBlobs: len(c.sess.blobs), NewBytes: c.sess.bytes,
		Filled: c.sess.filled, FilledTasks: len(c.sess.filledTasks), Secrets: c.man.Secrets}
	if c.mode != Record {
		s.Tasks = 0
		return s
	}
	for _, t := range c.tapes {
		s.Entries += len(t.Entries)
		for _, e := range t.Entries {
			s.Stripped += e.Stripped
		}
	}
	return s
}

// storedBlob counts a body stored under sum, n bytes on disk; a sum stored twice (two attempts racing on one
// body) counts once.
func (c *Cassette) storedBlob(sum string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess.blobs == nil {
		c.sess.blobs = map[string]bool{}
	}
	if !c.sess.blobs[sum] {
		c.sess.blobs[sum] = true
		c.sess.bytes += n
	}
}

// filledEntries counts n entries fetched live for task's tape (appendFilled; c.mu held).
func (c *Cassette) filledEntries(task string, n int) {
	if c.sess.filledTasks == nil {
		c.sess.filledTasks = map[string]bool{}
	}
	c.sess.filled += n
	c.sess.filledTasks[task] = true
}
