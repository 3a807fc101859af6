package parser

import "strings"

// globalValueOpts are, per program, the options that may come before its
// subcommand and take their value as the next word. Without them the value
// reads as the subcommand: "systemctl -H host enable x" would be "systemctl
// host", "uv --directory d run sh -c …" no run at all. Options written with
// "=" carry their value in the same word and need no entry. (git's are
// gitValueOpts.)
var globalValueOpts = map[string]map[string]bool{
	"docker": optSet("--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"),
	"podman": optSet("-c", "--connection", "--url", "--identity", "--root", "--runroot", "--storage-driver", "--storage-opt",
		"--cgroup-manager", "--conmon", "--events-backend", "--hooks-dir", "--imagestore", "--log-level", "--module",
		"--network-cmd-path", "--network-config-dir", "--out", "--registries-conf", "--runtime", "--runtime-flag", "--ssh",
		"--tmpdir", "--volumepath", "--cdi-spec-dir", "--config"),
	"nerdctl": optSet("-n", "--namespace", "-a", "--address", "-H", "--host", "--snapshotter", "--storage-driver", "--cni-path",
		"--cni-netconfpath", "--data-root", "--cgroup-manager", "--hosts-dir", "--bridge-ip", "--host-gateway-ip"),
	"buildah": optSet("--root", "--runroot", "--storage-driver", "--storage-opt", "--registries-conf", "--registries-conf-dir",
		"--log-level", "--cgroup-manager", "--short-name-alias-conf", "--userns-uid-map", "--userns-gid-map", "--default-mounts-file"),
	"systemctl": optSet("-H", "--host", "-M", "--machine", "--root", "--image", "--image-policy", "-t", "--type", "-p", "--property",
		"-s", "--signal", "--state", "-n", "--lines", "-o", "--output", "--kill-whom", "--kill-value", "--job-mode", "--preset-mode",
		"--boot-loader-entry", "--boot-loader-menu", "--reboot-argument", "--timestamp", "--what", "--message", "--drop-in", "--when"),
	"loginctl":   optSet("-H", "--host", "-M", "--machine", "-p", "--property", "-s", "--signal", "--kill-whom", "-n", "--lines", "-o", "--output"),
	"npm":        optSet("--registry", "--prefix", "-C", "-w", "--workspace", "--tag", "--otp", "--access", "--cache", "--userconfig", "--globalconfig", "--loglevel", "--scope", "--auth-type", "--cafile", "--include", "--omit", "--script-shell", "-L", "--location"),
	"pnpm":       optSet("-C", "--dir", "-F", "--filter", "--filter-prod", "--reporter", "--loglevel", "--registry", "--store-dir", "--virtual-store-dir", "--modules-dir", "--workspace-dir"),
	"yarn":       optSet("--cwd", "--registry", "--cache-folder", "--modules-folder", "--mutex", "--network-timeout", "--network-concurrency", "--link-folder", "--global-folder", "--use-yarnrc", "--preferred-cache-folder", "--otp"),
	"bun":        optSet("--cwd", "-c", "--config", "--env-file", "-r", "--preload", "--tsconfig-override"),
	"cargo":      optSet("--config", "-Z", "--color", "-C", "--explain"),
	"gem":        optSet("-C", "--config-file"),
	"go":         optSet("-C"),
	"hg":         optSet("-R", "--repository", "--cwd", "--config", "--encoding", "--encodingmode", "--color", "--pager"),
	"svn":        optSet("--username", "--password", "--config-dir", "--config-option"),
	"fossil":     optSet("-R", "--repository", "-U", "--user"),
	"helm":       optSet("--kube-context", "-n", "--namespace", "--kubeconfig", "--registry-config", "--repository-cache", "--repository-config", "--burst-limit", "--kube-apiserver", "--kube-as-group", "--kube-as-user", "--kube-ca-file", "--kube-token", "--kube-tls-server-name", "--qps", "--content-cache"),
	"kubectl":    optSet("--kubeconfig", "--context", "--cluster", "--user", "-n", "--namespace", "-s", "--server", "--token", "--as", "--as-group", "--as-uid", "--certificate-authority", "--client-certificate", "--client-key", "--cache-dir", "--request-timeout", "-v", "--tls-server-name", "--password", "--username", "--profile", "--profile-output", "--log-file"),
	"poetry":     optSet("-C", "--directory", "-P", "--project"),
	"pipenv":     optSet("--python", "--pypi-mirror"),
	"uv":         optSet("--directory", "--project", "--cache-dir", "--config-file", "--color", "--python-preference", "--allow-insecure-host", "-p", "--python"),
	"pdm":        optSet("-p", "--project", "-c", "--config"),
	"hatch":      optSet("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"),
	"rye":        optSet("--env-file"),
	"micromamba": optSet("-r", "--root-prefix", "--rc-file"),
	"bundle":     optSet("-r", "--retry"),
	"aws": optSet("--profile", "--region", "--output", "--endpoint-url", "--query", "--ca-bundle", "--cli-read-timeout",
		"--cli-connect-timeout", "--color", "--cli-binary-format"),
	"nix": optSet("--extra-experimental-features", "--experimental-features", "--log-format", "--store", "-I", "--include"),
}

func optSet(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

// globalValueWords is how many of the words after opt, met before name's
// subcommand, are its value: 0, 1, or 2 (nix --option NAME VALUE).
func globalValueWords(name, opt string) int {
	switch {
	case strings.Contains(opt, "="):
		return 0
	case name == "git" && gitValueOpts[opt], globalValueOpts[name][opt]:
		return 1
	case name == "nix" && opt == "--option":
		return 2
	}
	return 0
}

// engineSub splits a container engine's arguments into its subcommand and
// the words after it that are not options, passing over the engine's
// global options with their values (and buildx's --builder NAME).
func engineSub(name string, args []field) (string, []field) {
	sub, ops := "", []field{}
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case strings.HasPrefix(t, "-") && sub == "":
			k += globalValueWords(name, t)
		case t == "--builder" && (sub == "buildx" || sub == "builder") && len(ops) == 0:
			k++
		case strings.HasPrefix(t, "-"):
		case sub == "":
			sub = t
		default:
			ops = append(ops, args[k])
		}
	}
	return sub, ops
}
