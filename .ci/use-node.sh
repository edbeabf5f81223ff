# Puts the Node.js line the portal supports first on PATH when the machine's own node is older.
#
#   source .ci/use-node.sh      # in a shell, before npm ci / npm test / npm start
#
# The wanted major version is read from .nvmrc. When `node` already is that major or newer, nothing
# changes. Otherwise the newest release of that line is fetched from the npm registry as the package
# `node-linux-<arch>` (the official binaries, republished there), its tarball checked against the
# registry's own sha512 integrity field, unpacked once into a cache folder that later runs reuse
# (PORTAL_NODE_CACHE, default ~/.cache/portal-node), and put first on PATH. npm itself stays the
# machine's npm, run by the new node. Native addons then build against the new node's headers.
#
# It is meant to be sourced, so it returns rather than exits, and sets no shell options of its own.

portal_use_node() {
  local root want have arch version meta integrity tarball cache dir tmp got
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  want=$(tr -dc '0-9' <"$root/.nvmrc")
  have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$have" -ge "$want" ]; then
    echo "use-node: node $(node --version) on PATH meets Node $want" >&2
    return 0
  fi

  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "use-node: no Node $want binary for $(uname -m) on the npm registry; install Node $want yourself" >&2
      return 1
      ;;
  esac

  cache=${PORTAL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/portal-node}
  # The newest release of the line, as the registry lists it; a cached one when the registry is out of reach.
  version=$(npm view "node-linux-$arch@$want" version --json 2>/dev/null | tr -d ' \n[]"' | tr ',' '\n' | sort -V | tail -n 1)
  if [ -z "$version" ]; then
    version=$(ls "$cache" 2>/dev/null | grep "^$arch-$want\." | sed "s/^$arch-//" | sort -V | tail -n 1)
    [ -n "$version" ] || {
      echo "use-node: cannot reach the npm registry to fetch Node $want, and none is cached in $cache" >&2
      return 1
    }
  fi
  dir="$cache/$arch-$version"

  if [ ! -x "$dir/bin/node" ]; then
    meta=$(npm view "node-linux-$arch@$version" dist.integrity dist.tarball 2>/dev/null)
    integrity=$(printf '%s\n' "$meta" | sed -n 's/^dist.integrity = .\(sha512-[^'"'"']*\).*/\1/p')
    tarball=$(printf '%s\n' "$meta" | sed -n 's/^dist.tarball = .\([^'"'"']*\).*/\1/p')
    if [ -z "$integrity" ] || [ -z "$tarball" ]; then
      echo "use-node: the registry gave no tarball or integrity for node-linux-$arch@$version" >&2
      return 1
    fi
    mkdir -p "$cache" || return 1
    tmp=$(mktemp -d "$cache/.fetch.XXXXXX") || return 1
    echo "use-node: fetching node-linux-$arch@$version from the npm registry" >&2
    if ! curl -fsSL --retry 3 -o "$tmp/node.tgz" "$tarball"; then
      echo "use-node: download of $tarball failed" >&2
      rm -rf "$tmp"
      return 1
    fi
    got="sha512-$(openssl dgst -sha512 -binary "$tmp/node.tgz" | base64 -w0)"
    if [ "$got" != "$integrity" ]; then
      echo "use-node: node-linux-$arch@$version does not match the registry's integrity; refusing it" >&2
      rm -rf "$tmp"
      return 1
    fi
    tar -xzf "$tmp/node.tgz" -C "$tmp" || {
      rm -rf "$tmp"
      return 1
    }
    # Another run may have unpacked the same version meanwhile; either copy is the same bytes.
    mv -T "$tmp/package" "$dir" 2>/dev/null || true
    rm -rf "$tmp"
  fi

  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r
  echo "use-node: testing with node $(node --version) from $dir" >&2
}

portal_use_node
