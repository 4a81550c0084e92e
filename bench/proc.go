package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// proc is one process of the process table: pid, parent pid and command name (/proc/<pid>/stat).
type proc struct {
	pid, ppid int
	comm      string
}

// readProcs reads every process's pid, ppid and comm from /proc. Processes that exit while it reads are
// skipped.
func readProcs() ([]proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		p, ok := parseStat(pid, b)
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// parseStat parses /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so it
// is everything between the first "(" and the last ")".
func parseStat(pid int, b []byte) (proc, bool) {
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return proc{}, false
	}
	f := strings.Fields(string(b[close+1:]))
	if len(f) < 2 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, comm: string(b[open+1 : close])}, true
}

// descendants returns root and every process below it in procs.
func descendants(procs []proc, root int) []int {
	kids := map[int][]int{}
	for _, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// isChromium reports whether a command name is a Chromium process ("chromium", "chrome", "headless_shell";
// renderers and helpers keep the browser's comm).
func isChromium(comm string) bool {
	c := strings.ToLower(comm)
	return strings.Contains(c, "chrom") || strings.Contains(c, "headless_shell")
}

// BrowserRoots returns the pids of the Chromium browser processes below root: Chromium processes whose parent
// is not a Chromium process (one per launched browser), sorted.
func BrowserRoots(root int) ([]int, error) {
	procs, err := readProcs()
	if err != nil {
		return nil, err
	}
	byPID := map[int]proc{}
	for _, p := range procs {
		byPID[p.pid] = p
	}
	var out []int
	for _, pid := range descendants(procs, root) {
		p := byPID[pid]
		if isChromium(p.comm) && !isChromium(byPID[p.ppid].comm) {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out, nil
}

// TreePSS is the proportional set size in bytes of root and all its descendants: the sum of the "Pss:" lines
// of /proc/<pid>/smaps_rollup (kB in the file). PSS splits shared pages between the processes mapping them, so
// the trees of several browsers add up to their real joint footprint. Processes gone mid-read count 0.
func TreePSS(root int) (int64, error) {
	pss, _, err := TreeMemory(root)
	return pss, err
}

// TreeMemory is TreePSS and, of it, the anonymous part: the sum of the "Pss_Anon:" lines (heap, stacks, V8
// and other private memory; the kernel's Documentation/filesystems/proc.rst, "smaps_rollup"). The rest of PSS is
// file pages (the executable, its data files) and shared memory; a file page's share depends on how many other
// processes on the machine map the same file — other browsers of the same executable, this run's or not — while
// anonymous pages are shared only within one browser's forked processes, so PssAnon does not depend on what else
// runs. Bytes; processes gone mid-read count 0.
func TreeMemory(root int) (pss, anon int64, err error) {
	procs, err := readProcs()
	if err != nil {
		return 0, 0, err
	}
	for _, pid := range descendants(procs, root) {
		p, a, err := rollupKB(pid)
		if err != nil {
			continue
		}
		pss += p * 1024
		anon += a * 1024
	}
	return pss, anon, nil
}

// rollupKB reads the Pss and Pss_Anon lines of /proc/<pid>/smaps_rollup, in kB.
func rollupKB(pid int) (pss, anon int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return parseRollup(f)
}

// pssKB reads the Pss line of /proc/<pid>/smaps_rollup, in kB.
func pssKB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parsePss(f)
}

// parsePss returns the value of the first "Pss:" line of a smaps_rollup file, in kB.
func parsePss(r io.Reader) (int64, error) {
	pss, _, err := parseRollup(r)
	return pss, err
}

// parseRollup returns the values of the "Pss:" and "Pss_Anon:" lines of a smaps_rollup file, in kB; a missing
// Pss line is an error, a missing Pss_Anon (kernels before 5.8) reads 0.
func parseRollup(r io.Reader) (pss, anon int64, err error) {
	sc := bufio.NewScanner(r)
	found := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || (f[0] != "Pss:" && f[0] != "Pss_Anon:") {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if f[0] == "Pss:" {
			pss, found = v, true
		} else {
			anon = v
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if !found {
		return 0, 0, fmt.Errorf("no Pss line")
	}
	return pss, anon, nil
}
