package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/rsconform/rsconform/internal/testbin"
)

// readmeBlock returns the first fenced block of language lang after the
// heading in README.md.
func readmeBlock(readme, heading, lang string) string {
	i := strings.Index(readme, heading)
	Expect(i).To(BeNumerically(">=", 0), "README has no %q", heading)
	rest := readme[i:]
	start := strings.Index(rest, "```"+lang+"\n")
	Expect(start).To(BeNumerically(">=", 0), "no %s block after %q", lang, heading)
	rest = rest[start+len("```"+lang+"\n"):]
	end := strings.Index(rest, "```\n")
	Expect(end).To(BeNumerically(">=", 0))
	return rest[:end]
}

// The README's quoted outputs: every fenced block that starts with a
// "$ rsconform ..." line is that command's standard output, run from the
// repository's root, word for word.
var _ = Describe("The README's quoted outputs", func() {
	It("are what the commands print", func() {
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.Chdir, wd)
		Expect(os.Chdir("../..")).To(Succeed())
		blocks := regexp.MustCompile("(?s)```[a-z]*\n(\\$ rsconform [^\n]*)\n(.*?)```\n").FindAllStringSubmatch(string(readme), -1)
		Expect(blocks).NotTo(BeEmpty())
		for _, b := range blocks {
			_, out, errs := cli(strings.Fields(strings.TrimPrefix(b[1], "$ rsconform "))...)
			Expect(out).To(Equal(b[2]), "README.md quotes %q; stderr:\n%s", b[1], errs)
		}
	})
})

// freshBuild makes the fixture build tree look as a build just wrote it:
// the resources written a minute ago, then the Resource List with its at
// set to now. Their <lastmod> say when the resources changed, long before:
// the files' modification times, which --map must not serve as Last-Modified, are
// not the resources'.
func freshBuild(site string) {
	now := time.Now().UTC().Truncate(time.Second)
	list := filepath.Join(site, "resourcelist.xml")
	data, err := os.ReadFile(list)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(data)).To(ContainSubstring("<lastmod>"))
	data = regexp.MustCompile(`at="[^"]*"`).ReplaceAll(data, []byte(`at="`+now.Format(time.RFC3339)+`"`))
	Expect(os.WriteFile(list, data, 0o644)).To(Succeed())
	for _, res := range []string{"res/res1.txt", "res/res2.txt"} {
		Expect(os.Chtimes(filepath.Join(site, res), now.Add(-time.Minute), now.Add(-time.Minute))).To(Succeed())
	}
}

// The README's CI recipes for a Source, run as written: the shell block
// and the run steps of the GitHub Actions job that call rsconform (the
// others install packages or build the user's site), in a work tree laid
// out as the recipes expect: a clone of rsconform in rsconform/ (this
// repository) and the build output in build/site (testdata/ci, with a
// plain sitemap.xml and an RSS feed.xml next to the ResourceSync
// documents). The install step really runs go install, into a GOBIN that
// testbin keeps between runs, and the shell reports the clone by its real
// folder (bash -o physical), as a CI runner's clone is one: the go command
// keys what it compiles by the package's folder, so through the symlink
// under a new temporary folder it compiled all of rsconform again each run
// (13 s idle); now it compiles and links only what changed.
var _ = Describe("The README's CI recipes", Ordered, func() {
	var work, bin string
	var env []string
	// installed says a recipe run by an earlier spec installed rsconform
	// into bin (its go install succeeded: the recipe ran whole).
	var installed bool
	BeforeAll(func() {
		if _, err := exec.LookPath("go"); err != nil {
			Skip("no go command to install rsconform with")
		}
		repo, err := filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		work = GinkgoT().TempDir()
		bin, err = testbin.Dir("readme-gobin")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.Symlink(repo, filepath.Join(work, "rsconform"))).To(Succeed())
		Expect(os.CopyFS(filepath.Join(work, "build"), os.DirFS("testdata/ci/build"))).To(Succeed())
		freshBuild(filepath.Join(work, "build/site"))
		env = append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	})

	runScript := func(script string) string {
		cmd := exec.Command("bash", "-euo", "pipefail", "-o", "physical", "-c", script)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		GinkgoWriter.Printf("$ %s\n%s\n", script, out)
		Expect(err).NotTo(HaveOccurred(), "%s\n%s", script, out)
		return string(out)
	}

	It("runs the README's shell recipe for a Source", func() {
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		block := readmeBlock(string(readme), "### A Source: validate what your build produces", "sh")
		out := runScript(block)
		installed = strings.Contains(block, "go install ./cmd/rsconform")
		Expect(out).To(ContainSubstring("SUCCESS!"))
		Expect(out).NotTo(ContainSubstring("\x1b["), "no colour when piped")
		junit, err := os.ReadFile(filepath.Join(work, "rsconform.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring("<testsuites"))
		Expect(string(junit)).NotTo(ContainSubstring("<failure"))
		Expect(filepath.Join(work, "suite.xml")).To(BeAnExistingFile())
	})

	// Docker has no daemon here: the README's docker run line is played by
	// a shell function that runs the installed binary as the container
	// would, under the uid:gid of its --user or else the image's own user
	// (the Dockerfile's useradd --uid), in a workspace that belongs to a CI
	// runner's user (uid 1001, which id -u gives in the recipe) and that
	// only it may write to.
	It("runs the README's Docker recipe in a workspace of another uid", func() {
		if os.Geteuid() != 0 {
			Skip("not root: cannot run as other uids")
		}
		if _, err := exec.LookPath("setpriv"); err != nil {
			Skip("no setpriv to run as another uid")
		}
		// Installed unless the shell recipe just did: GOBIN outlives the
		// run, and this spec may run alone (up to date, it costs no link,
		// but the go command's check of the module, about 0.5 s of CPU).
		if !installed {
			runScript("cd rsconform && go install ./cmd/rsconform")
			installed = true
		}
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		var recipe string
		for _, m := range regexp.MustCompile("`(docker run [^`]*)`").FindAllStringSubmatch(string(readme), -1) {
			if strings.Contains(m[1], " -o ") {
				recipe = m[1]
			}
		}
		Expect(recipe).NotTo(BeEmpty(), "the README's docker run line that writes a report")
		dockerfile, err := os.ReadFile("../../Dockerfile")
		Expect(err).NotTo(HaveOccurred())
		imageUID := regexp.MustCompile(`useradd [^\n]*--uid (\d+)`).FindSubmatch(dockerfile)
		Expect(imageUID).NotTo(BeNil(), "the Dockerfile's user")
		Expect(string(dockerfile)).To(MatchRegexp(`(?m)^USER rsconform$`))

		ws := filepath.Join(GinkgoT().TempDir(), "workspace")
		Expect(os.CopyFS(filepath.Join(ws, "build"), os.DirFS(filepath.Join(work, "build")))).To(Succeed())
		Expect(filepath.WalkDir(ws, func(p string, _ os.DirEntry, err error) error {
			Expect(err).NotTo(HaveOccurred())
			return os.Lchown(p, 1001, 1001)
		})).To(Succeed())
		Expect(os.Chmod(ws, 0o755)).To(Succeed())
		// The test's temporary folders (0700) are searchable by the other
		// uids, as a runner's home is; the workspace stays writable by
		// 1001 only.
		for _, p := range []string{filepath.Dir(ws), bin} {
			for dir := p; strings.HasPrefix(dir, os.TempDir()+string(filepath.Separator)); dir = filepath.Dir(dir) {
				st, err := os.Stat(dir)
				Expect(err).NotTo(HaveOccurred())
				Expect(os.Chmod(dir, st.Mode().Perm()|0o011)).To(Succeed())
			}
		}
		shim := `id() { case "$1" in -u|-g) echo 1001;; *) command id "$@";; esac; }
docker() {
  [ "$1" = run ] || { echo "docker $1: not played" >&2; return 2; }; shift
  local user=` + string(imageUID[1]) + `:` + string(imageUID[1]) + `
  while [ "${1#-}" != "$1" ]; do
    case "$1" in
      --rm) shift;;
      -v|-w) shift 2;;
      --user|-u) user=$2; shift 2;;
      *) echo "docker run $1: not played" >&2; return 2;;
    esac
  done
  shift # the image
  setpriv --reuid "${user%%:*}" --regid "${user##*:}" --clear-groups -- "$RSCONFORM_BIN" "$@"
}
`
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", shim+recipe)
		cmd.Dir = ws
		cmd.Env = append(env, "RSCONFORM_BIN="+filepath.Join(bin, "rsconform"))
		out, err := cmd.CombinedOutput()
		GinkgoWriter.Printf("$ %s\n%s\n", recipe, out)
		Expect(err).NotTo(HaveOccurred(), "%s\n%s", recipe, out)
		st, err := os.Stat(filepath.Join(ws, "rsconform.sarif"))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Sys().(*syscall.Stat_t).Uid).To(BeEquivalentTo(1001), "the report belongs to the runner's user")
	})

	It("runs the rsconform steps of the README's GitHub Actions job", func() {
		readme, err := os.ReadFile("../../README.md")
		Expect(err).NotTo(HaveOccurred())
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Run string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		Expect(yaml.Unmarshal([]byte(readmeBlock(string(readme), "GitHub Actions (`.github/workflows/resourcesync.yml`)", "yaml")), &wf)).To(Succeed())
		ran := 0
		for _, step := range wf.Jobs["source"].Steps {
			if !strings.Contains(step.Run, "rsconform") {
				continue
			}
			runScript(strings.TrimSpace(step.Run))
			ran++
		}
		Expect(ran).To(Equal(3), "install, validate, suite")
		data, err := os.ReadFile(filepath.Join(work, "rsconform.sarif"))
		Expect(err).NotTo(HaveOccurred())
		var sarif struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful bool `json:"executionSuccessful"`
				} `json:"invocations"`
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		Expect(json.Unmarshal(data, &sarif)).To(Succeed())
		Expect(sarif.Runs[0].Invocations[0].ExecutionSuccessful).To(BeTrue())
		Expect(sarif.Runs[0].Results).To(BeEmpty(), "the fixture build conforms")
		Expect(filepath.Join(work, "source-suite.xml")).To(BeAnExistingFile())
	})
})
