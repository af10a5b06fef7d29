# SPDX-License-Identifier: GPL-3.0-or-later
# What commprof needs from Debian: one list for every supported release, sourced by
# bootstrap.sh (installs it on Debian 12) and platform-check.sh (installs it in a Debian 13
# root). A package named differently on a release goes in COMMPROF_RENAMED, one that only
# a release needs in COMMPROF_RELEASE_ONLY.

COMMPROF_PACKAGES=(
  # build
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev fonts-dejavu-core
  libyaml-cpp-dev libsqlite3-dev libsimdjson-dev zlib1g-dev libisal-dev libdeflate-dev
  libtorch-dev libgloo-dev
  # tests: PyTorch's own Python DDP is the reference (tst_rank_ddp, tests/bench, trace recording)
  python3-torch
  # tests: tst_slurm starts a one-node Slurm of its own (slurmctld, slurmd, munged)
  slurm-wlm munge
  # tests: man pages rendered with man(1), the zsh completion parsed by zsh, the live run view
  # driven through a pseudo-terminal by script(1), the .deb made by dpkg-shlibdeps, the words
  # of the exported figures placed by pdftotext -bbox
  man-db zsh bsdutils dpkg-dev poppler-utils
  # tests: macros.tex compiled by pdflatex with LaTeX's kernel alone (tst_report_tex)
  texlive-latex-base
  # the Debian package (debian/, built by dpkg-buildpackage) and what checks it and the sources:
  # lintian on the .deb, reuse lint on the licences, appstreamcli and desktop-file-validate on
  # the desktop metadata
  debhelper lintian reuse appstream desktop-file-utils
)

# [release:package]=the name on that release
declare -A COMMPROF_RENAMED=()

# [release]=packages only that release needs: from Debian 13 Qt's SVG icon engine and image
# plugins are a package of their own (in Debian 12 libqt6svg6 carries them), and without them
# the workbench's SVG icon is empty.
# Debian 12's python3-torchvision (0.14) makes the ResNet models of real_models.yaml and
# tst_rank_torchscript's ResNet-18 (commprof model export torchvision:...).
declare -A COMMPROF_RELEASE_ONLY=([debian13]="qt6-svg-plugins" [debian12]="python3-torchvision")

# commprof_packages RELEASE: the list, one name a line, as RELEASE calls them.
commprof_packages() {
  local p
  for p in "${COMMPROF_PACKAGES[@]}"; do
    echo "${COMMPROF_RENAMED[$1:$p]:-$p}"
  done
  for p in ${COMMPROF_RELEASE_ONLY[$1]:-}; do
    echo "$p"
  done
}

# commprof_without PACKAGE: what cannot be built or tested without it ("" when nothing is lost,
# "fatal" when nothing can be built).
commprof_without() {
  case "$1" in
    build-essential | cmake | ninja-build) echo "fatal" ;;
    libtorch-dev | libgloo-dev) echo "commprof-rank and every test that runs ranks" ;;
    python3-torch) echo "the Python DDP reference of tst_rank_ddp and the Python benchmarks" ;;
    python3-torchvision) echo "commprof model export torchvision:..., the ResNet rows of tst_rank_torchscript" ;;
    slurm-wlm | munge) echo "tst_slurm (skipped): the Slurm launcher against a real Slurm" ;;
    ccache | pkg-config | fonts-dejavu-core) echo "" ;;
    man-db | zsh | bsdutils | dpkg-dev) echo "checks of the man pages, completions, terminal view and .deb" ;;
    texlive-latex-base) echo "tst_report_tex's pdflatex run on macros.tex (skipped)" ;;
    poppler-utils) echo "the check that every word of an exported figure is on its page" ;;
    debhelper) echo "the Debian package (packaging/bootstrap.sh package)" ;;
    lintian | reuse | appstream | desktop-file-utils) echo "the licence and metadata checks (skipped)" ;;
    *) echo "everything but commprof-rank (configured with -DCOMMPROF_RANK_ONLY=ON, no ctest)" ;;
  esac
}
