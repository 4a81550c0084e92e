package results

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// The identity of a record: a pair (suite, task, rep) and an attempt (variant within a pair) have stable ids, and
// every arm of a pair shares one seed, so records of separate runs and shards join on them.

func hash16(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x1f")))
	return hex.EncodeToString(h[:8])
}

// PairID is the stable id of (suite, task, rep): the first 16 hex digits of SHA-256.
func PairID(suite, task string, rep int) string {
	return hash16("pair", suite, task, strconv.Itoa(rep))
}

// AttemptID is the stable id of (variant, pair_id).
func AttemptID(variant, pairID string) string { return hash16("attempt", variant, pairID) }

// Seed derives an attempt seed from pair_id and the base seed, so every arm of a pair gets the same seed. The
// value is in [0, 2^31).
func Seed(pairID string, base int64) int {
	h := sha256.Sum256([]byte(fmt.Sprintf("seed\x1f%s\x1f%d", pairID, base)))
	return int(binary.BigEndian.Uint32(h[:4]) & 0x7fffffff)
}

// InShard reports whether pair pairID belongs to shard i of n (1-based; n ≤ 1: the whole plan): the plan's pairs
// are partitioned by the pair id's first 8 bytes as a big-endian integer, modulo n. The runner's shards
// (runner.Shard) and a shard's own sequential looks (ShardPairs) use this one partition.
func InShard(pairID string, i, n int) bool {
	if n <= 1 {
		return true
	}
	b, _ := hex.DecodeString(pairID)
	return len(b) >= 8 && int(binary.BigEndian.Uint64(b)%uint64(n)) == i-1
}
