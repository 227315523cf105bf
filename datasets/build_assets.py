"""Rebuild the committed card art and table photos from packages, by package name.

Usage (from the repository root)::

    python3 datasets/build_assets.py fetch            # download packages into the work folder
    python3 datasets/build_assets.py decks [ID ...]   # render decks -> datasets/decks/<id>/
    python3 datasets/build_assets.py backs            # card backs -> datasets/backs/
    python3 datasets/build_assets.py surfaces         # table photos -> datasets/surfaces/
    python3 datasets/build_assets.py retypeset        # decks with indices set in other typefaces
    python3 datasets/build_assets.py notice           # datasets/NOTICE.md
    python3 datasets/build_assets.py all

Downloads go to ``$GINSCORE_ASSET_WORK`` (default ``/tmp/ginscore-assets``), never into the
repository. Needs ``apt-get`` (``apt-get download`` + ``dpkg -x``, no root for the data
packages), ``npm pack``, ``pip download``, and the commands ``rsvg-convert`` (Debian
``librsvg2-bin``) and, optionally, ``pngquant`` (palette PNGs, smaller files).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from engine.cards import CARD_CODES  # noqa: E402
from vision.training.corner_finder import find_deck_indices, round_corners, save_png  # noqa: E402

DATASETS = REPO / "datasets"
WORK = Path(os.environ.get("GINSCORE_ASSET_WORK", "/tmp/ginscore-assets"))
ROOT = WORK / "root"  # dpkg -x target
NPM = WORK / "npm"
PYPI = WORK / "pypi"

CARD_HEIGHT = 340  # px, every rendered face

# ------------------------------------------------------------------ packages
DEBIAN_PACKAGES = {
    "gnome-cards-data": "GPL-3.0-or-later",
    "aisleriot": "GPL-3.0-or-later",
    "kdegames-card-data-kf5": "GPL-2.0-or-later",
    "openclipart-svg": "public domain",
    "mate-backgrounds": "GPL-2.0-or-later",
    "lomiri-wallpapers-16.04": "CC-BY-4.0 / CC-BY-SA-4.0 per file",
    "gimp-data": "GPL-3.0-or-later",
    "digikam-data": "GPL-2.0-or-later",
    "foobillardplus-data": "GPL-2.0-only",
}
NPM_PACKAGES = {
    "@heruka_urgyen/react-playing-cards@0.5.0": "heruka_urgyen-react-playing-cards-0.5.0",
    "@younestouati/playing-cards-standard-deck@3.0.0": "younestouati-playing-cards-standard-deck-3.0.0",
}
PYPI_PACKAGES = ("blackjack-gui==1.8.1", "pypokergui==0.0.7")


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command, failing loudly with its stderr."""
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()[-500:]}")
    return result


def fetch() -> None:
    """Download every source package into WORK and unpack it."""
    debs = WORK / "debs"
    for folder in (debs, ROOT, NPM, PYPI):
        folder.mkdir(parents=True, exist_ok=True)
    run(["apt-get", "download", *DEBIAN_PACKAGES], cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg", "-x", str(deb), str(ROOT)])
    for spec, folder in NPM_PACKAGES.items():
        run(["npm", "pack", spec], cwd=NPM)
        target = NPM / folder
        target.mkdir(exist_ok=True)
        with tarfile.open(NPM / f"{folder}.tgz") as archive:
            archive.extractall(target, filter="data")
    run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(PYPI), *PYPI_PACKAGES])
    for wheel in PYPI.glob("*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(PYPI / "unpacked")
    for sdist in PYPI.glob("*.tar.gz"):
        with tarfile.open(sdist) as archive:
            archive.extractall(PYPI / "unpacked", filter="data")


def package_version(package: str) -> str:
    """Version of a downloaded Debian package, from its .deb file name."""
    for deb in (WORK / "debs").glob(f"{package}_*.deb"):
        return deb.name.split("_")[1].replace("%3a", ":")
    return "?"


# ------------------------------------------------------------------ deck sources
SUIT_WORDS = {"s": "spade", "h": "heart", "d": "diamond", "c": "club"}
RANK_WORDS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king", **{str(n): str(n) for n in range(2, 10)}}
RANK_NAMES = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king", **{str(n): str(n) for n in range(2, 10)}}
RANK_NUMBERS = {rank: str(number) for number, rank in enumerate("A23456789TJQK", start=1)}


@dataclass(frozen=True)
class DeckSource:
    """Where one deck's 52 faces come from and how to name each one."""

    deck_id: str
    name: str
    package: str  # package name as its registry spells it
    version: str  # "" = read from the downloaded .deb
    license: str
    kind: str  # "sheet" (one SVG, element ids), "svg" (file per card), "png"
    path: str  # relative to the unpack root of the package
    name_of: object  # code -> element id or file name
    split: str = "train"
    corners: tuple[str, ...] = ("tl", "br")
    back: str | None = None  # element id / file name of the card back
    overrides: dict = field(default_factory=dict)
    # faces whose index the corner finder boxes too narrow (the suit beside the rank left out), boxed by hand
    # from the reader's own boxes on the face (vision.training.face_indices): code -> regions, fractions
    index_fixes: dict = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return package_root(self.package)


def package_root(package: str) -> Path:
    """Folder a downloaded package was unpacked into (paths in the sources are relative to it)."""
    if package in DEBIAN_PACKAGES:
        return ROOT
    for spec, folder in NPM_PACKAGES.items():
        if spec.rsplit("@", 1)[0] == package:
            return NPM / folder
    return PYPI / "unpacked"


def aisleriot_id(code: str) -> str:
    return f"{SUIT_WORDS[code[1]]}_{RANK_WORDS[code[0]]}"


def kde_id(code: str) -> str:
    return f"{RANK_WORDS[code[0]]}_{SUIT_WORDS[code[1]]}"


def openclipart_file(prefix: str, code: str) -> str:
    rank = {"A": "a", "T": "10", "J": "j", "Q": "q", "K": "k"}.get(code[0], code[0])
    return f"{prefix}_{code[1]}_{rank}.svg"


def heruka_file(code: str) -> str:
    return f"{code[0]}{code[1].upper()}.svg"


def younestouati_file(code: str) -> str:
    return f"{RANK_NUMBERS[code[0]]}{code[1]}.svg"


def blackjack_file(code: str) -> str:
    return f"{RANK_NAMES[code[0]]}_of_{SUIT_WORDS[code[1]]}s.png"


def pypoker_file(code: str) -> str:
    return f"card_{code[1].upper()}{code[0]}.png"


GNOME = "usr/share/aisleriot/cards"
KDE = "usr/share/carddecks"
CLIPART = "usr/share/openclipart/svg/recreation/games/cards"
GPL3 = "GPL-3.0-or-later"
GPL2 = "GPL-2.0-or-later"


def gnome_deck(deck_id: str, name: str, **kwargs) -> DeckSource:
    package = "aisleriot" if deck_id == "bonded" else "gnome-cards-data"
    return DeckSource(
        deck_id, name, package, "", GPL3, "sheet", f"{GNOME}/{deck_id}.svgz", aisleriot_id, back="back", **kwargs
    )


def kde_deck(folder: str, sheet: str, name: str, license: str = GPL2, **kwargs) -> DeckSource:
    return DeckSource(
        f"kde_{folder.replace('-', '_')}",
        name,
        "kdegames-card-data-kf5",
        "",
        license,
        "sheet",
        f"{KDE}/svg-{folder}/{sheet}",
        kde_id,
        back="back",
        **kwargs,
    )


DECKS: list[DeckSource] = [
    gnome_deck("anglo", "Anglo (GNOME)"),
    gnome_deck("anglo_modern", "Anglo modern (GNOME)"),
    gnome_deck("anglo_modern_4_color", "Anglo modern four-colour (GNOME)"),
    gnome_deck("anglo_poker", "Anglo poker (GNOME)"),
    gnome_deck("atlasnye", "Atlasnye (GNOME)"),
    gnome_deck("bellot", "Bellot (GNOME)"),
    gnome_deck("dondorf", "Dondorf (GNOME)", corners=("tl", "tr", "bl", "br")),
    gnome_deck("gnomangelo", "Gnomangelo (GNOME)"),
    gnome_deck("neoclassical", "Neoclassical (GNOME)"),
    gnome_deck("neoclassical_4_color", "Neoclassical four-colour (GNOME)"),
    gnome_deck("orell", "Orell (GNOME)"),
    gnome_deck("paris", "Paris (GNOME)"),
    gnome_deck("plastic", "Plastic (GNOME)"),
    gnome_deck("simplistic", "Simplistic (GNOME)"),
    gnome_deck("tango", "Tango (GNOME)", overrides={"zone_w": 0.45, "zone_h": 0.5, "max_w": 0.4, "max_h": 0.45}),
    gnome_deck(
        "tango_nuevo",
        "Tango nuevo (GNOME)",
        corners=("top",),
        overrides={"zone_w": 0.5, "zone_h": 0.3, "max_w": 0.45, "max_h": 0.25},
    ),
    gnome_deck("tigullio", "Tigullio (GNOME)"),
    gnome_deck("bonded", "Bonded (aisleriot)", corners=("tl", "tr", "bl", "br")),
    kde_deck(
        "ancient-egyptians",
        "Ancient_Egyptians.svgz",
        "Ancient Egyptians (KDE)",
        overrides={"zone_h": 0.45, "max_h": 0.36},
        index_fixes={"7h": [[0.0476, 0.0235, 0.2103, 0.3088], [0.7802, 0.6441, 0.977, 0.9559]]},
    ),
    kde_deck(
        "jolly-royal",
        "jolly-royal.svgz",
        "Jolly Royal (KDE)",
        index_fixes={
            "Jh": [[0.0359, 0.0265, 0.2231, 0.3294], [0.7849, 0.6447, 0.9737, 0.9706]],
            "Jd": [[0.0367, 0.0235, 0.2275, 0.3694], [0.8024, 0.6418, 0.9554, 0.9538]],
            "7c": [[0.0558, 0.0382, 0.1992, 0.3059], [0.8052, 0.6797, 0.9602, 0.9562]],
        },
    ),
    kde_deck("nicu-white", "white.svgz", "Nicu white (KDE)", overrides={"zone_h": 0.5, "max_h": 0.45, "gap": 0.6}),
    kde_deck("penguins", "penguins.svgz", "Penguins (KDE)", license=GPL3, overrides={"erode": 2}),
    kde_deck("standard", "standard.svgz", "Standard (KDE)"),
    kde_deck(
        "tigullio-international",
        "tigullio-international.svgz",
        "Tigullio international (KDE)",
        license="LGPL-2.0-or-later",
    ),
    *[
        DeckSource(
            f"openclipart_{style}",
            f"Openclipart {style}",
            "openclipart-svg",
            "",
            "public domain",
            "svg",
            f"{CLIPART}/{style}",
            partial(openclipart_file, style),
            overrides={"zone_h": 0.5, "max_h": 0.45, "gap": 0.6},
        )
        for style in ("bordered", "simple", "ornamental")
    ],
    *[
        DeckSource(
            f"kennard_{colours.replace('-', '_')}",
            f"Kennard cards {colours} (npm)",
            "@heruka_urgyen/react-playing-cards",
            "0.5.0",
            "MIT (package), CC0-1.0 (art)",
            "svg",
            f"package/src/images/{colours}",
            heruka_file,
        )
        for colours in ("2color", "4color")
    ],
    DeckSource(
        "younestouati",
        "Playing cards standard deck (npm)",
        "@younestouati/playing-cards-standard-deck",
        "3.0.0",
        "LGPL-3.0",
        "svg",
        "package/cards",
        younestouati_file,
        back="back.svg",
    ),
    DeckSource(
        "blackjack_gui",
        "Blackjack GUI (PyPI)",
        "blackjack-gui",
        "1.8.1",
        "MIT",
        "png",
        "blackjack_gui/images",
        blackjack_file,
        back="back.png",
    ),
    DeckSource(
        "pypokergui",
        "PyPokerGUI (PyPI)",
        "pypokergui",
        "0.0.7",
        "MIT",
        "png",
        "PyPokerGUI-0.0.7/pypokergui/server/static/images",
        pypoker_file,
    ),
]
# Held out for measuring generalisation to unseen designs: each is a design family of its own
# (no sibling of it is in training), with varied styles.
VAL_DECKS = {"bonded", "kde_penguins", "kde_ancient_egyptians", "atlasnye", "kde_jolly_royal"}
# Left out as near-copies of kept decks: anglo_bitmap, gnomangelo_bitmap (= anglo, gnomangelo),
# GNOME ornamental (= openclipart ornamental), openclipart white (= KDE nicu-white), KDE
# gm-paris and npm svg-cards (= paris); blackjack-gui's alternate picture faces (`*2.png`:
# their bottom index is cut off by the image edge).


# ------------------------------------------------------------------ rendering
def read_rgba(path: Path) -> np.ndarray:
    """A PNG as an RGBA uint8 array."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise RuntimeError(f"cannot read {path}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)


def crop_to_alpha(image: np.ndarray, threshold: int = 16) -> np.ndarray:
    """Crop an RGBA image to the box of its non-transparent pixels."""
    ys, xs = np.nonzero(image[:, :, 3] > threshold)
    if len(xs) == 0:
        raise RuntimeError("rendered image is empty")
    return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def render_svg(svg: Path, zoom: float, element_id: str | None) -> np.ndarray:
    """Render an SVG (or one element of it) with rsvg-convert and crop it to the card."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "card.png"
        command = ["rsvg-convert", "--zoom", f"{zoom:.5f}", "-o", str(out)]
        if element_id:
            command.insert(1, f"--export-id={element_id}")
        run([*command, str(svg)])
        return crop_to_alpha(read_rgba(out))


def render_face(source: DeckSource, code_name: str, zoom: float) -> np.ndarray:
    """One face of a deck at the given zoom, cropped to the card."""
    if source.kind == "sheet":
        return render_svg(source.base / source.path, zoom, code_name)
    if source.kind == "svg":
        return render_svg(source.base / source.path / code_name, zoom, None)
    image = crop_to_alpha(read_rgba(source.base / source.path / code_name))
    height = round(image.shape[0] * zoom)
    width = round(image.shape[1] * zoom)
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def deck_zoom(source: DeckSource, first_name: str) -> float:
    """Zoom that makes a face CARD_HEIGHT pixels high (measured on one face at zoom 1)."""
    face = render_face(source, first_name, 1.0)
    return CARD_HEIGHT / face.shape[0]


def render_deck_faces(source: DeckSource) -> dict[str, np.ndarray]:
    """All 52 faces of a deck, the same size, RGBA."""
    zoom = deck_zoom(source, source.name_of("As"))
    faces = {code: render_face(source, source.name_of(code), zoom) for code in CARD_CODES}
    sizes = [face.shape[:2] for face in faces.values()]
    height = CARD_HEIGHT
    width = int(np.median([w * CARD_HEIGHT / h for h, w in sizes]).round())
    for code, face in faces.items():
        if face.shape[:2] != (height, width):
            face = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
        if face[0, 0, 3] > 0:  # square-cornered art: cut the corners like a real card
            face = round_corners(face, radius=round(0.055 * width))
        faces[code] = face
    return faces


def region_fractions(faces: dict[str, np.ndarray], source: DeckSource) -> dict[str, list]:
    """deck.json's index_regions: boxes as fractions of the card width and height."""
    boxes = find_deck_indices(faces, source.corners, source.overrides)
    regions = {}
    for code, face in faces.items():
        height, width = face.shape[:2]
        regions[code] = [
            [round(x0 / width, 4), round(y0 / height, 4), round(x1 / width, 4), round(y1 / height, 4)]
            for x0, y0, x1, y1 in boxes[code]
        ]
    return {**regions, **source.index_fixes}


def deck_meta(source: DeckSource, regions: dict[str, list]) -> dict:
    """Contents of a deck's deck.json."""
    version = source.version or package_version(source.package)
    return {
        "name": source.name,
        "source": f"{source.package} {version}: {source.path}",
        "license": source.license,
        "split": "val" if source.deck_id in VAL_DECKS else "train",
        "corners": list(source.corners),
        "index_regions": regions,
    }


def build_deck(source: DeckSource) -> tuple[str, float]:
    """Render one deck into datasets/decks/<id>/ (faces + deck.json); returns (id, seconds)."""
    started = time.perf_counter()
    faces = render_deck_faces(source)
    folder = DATASETS / "decks" / source.deck_id
    if folder.exists():
        shutil.rmtree(folder)
    for code, face in faces.items():
        save_png(face, folder / f"{code}.png")
    meta = deck_meta(source, region_fractions(faces, source))
    (folder / "deck.json").write_text(json.dumps(meta, indent=1) + "\n")
    return source.deck_id, time.perf_counter() - started


def rebuild_regions(deck_ids: list[str]) -> None:
    """Recompute deck.json (index regions) from the committed faces, without re-rendering."""
    for source in DECKS:
        if deck_ids and source.deck_id not in deck_ids:
            continue
        folder = DATASETS / "decks" / source.deck_id
        if not (folder / "deck.json").is_file():
            continue
        faces = {code: read_rgba(folder / f"{code}.png") for code in CARD_CODES}
        meta = deck_meta(source, region_fractions(faces, source))
        (folder / "deck.json").write_text(json.dumps(meta, indent=1) + "\n")
        print(f"regions {source.deck_id}")


def build_decks(deck_ids: list[str], workers: int) -> None:
    """Render the named decks (all when empty), `workers` processes in parallel."""
    chosen = [d for d in DECKS if not deck_ids or d.deck_id in deck_ids]
    unknown = set(deck_ids) - {d.deck_id for d in DECKS}
    if unknown:
        raise SystemExit(f"unknown deck ids: {sorted(unknown)}")
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        for deck_id, seconds in pool.map(build_deck, chosen):
            print(f"{deck_id:32s} {seconds:6.1f} s", flush=True)
    print(f"{len(chosen)} decks in {time.perf_counter() - started:.0f} s with {workers} workers")


FONTS_NOTICE = (
    "The TrueType fonts that synthetic clutter (printed pages, envelopes, box lids) is printed in, copied",
    "from Debian's packages: DejaVu Sans, Sans Mono, Sans Condensed Oblique and Serif Bold",
    "(`fonts-dejavu-core`; Bitstream Vera licence with DejaVu's public-domain changes, see",
    "`fonts/COPYRIGHT-dejavu`) and Liberation Serif, Sans Bold and Sans Narrow Italic",
    "(`fonts-liberation`; SIL Open Font License 1.1, see `fonts/COPYRIGHT-liberation`).",
    "",
    "Handwriting fonts (`fonts/handwriting/`), which the synthetic score pads are written in, copied from",
    "Debian's packages: Breip (`fonts-breip`; GPL-2+ / OFL-1.0, see `fonts/handwriting/COPYRIGHT-breip`), DKG",
    "handwriting `dkg.ttf` (`fonts-dkg-handwriting`; OFL-1.1 / GPL-3+, see `COPYRIGHT-dkg-handwriting`) and Dancing",
    "Script Regular (`fonts-dancingscript`; OFL-1.1, see `COPYRIGHT-dancingscript`).",
)


# ------------------------------------------------------------------ card backs
@dataclass(frozen=True)
class BackSource:
    """One card-back design: an element of a deck sheet, or a file."""

    name: str
    package: str
    license: str
    path: str
    element_id: str | None = None


OPENCLIPART_BACKS = ("back01", "back03", "back05", "back07", "back09")
BACKS: list[BackSource] = [
    *[
        BackSource(f"gnome_{deck}", "gnome-cards-data", GPL3, f"{GNOME}/{deck}.svgz", "back")
        for deck in ("anglo", "dondorf", "ornamental", "tango", "plastic", "paris", "bellot")
    ],
    *[
        BackSource(f"kde_{folder}", "kdegames-card-data-kf5", GPL2, f"{KDE}/svg-{folder}/{sheet}", "back")
        for folder, sheet in (
            ("standard", "standard.svgz"),
            ("penguins", "penguins.svgz"),
            ("jolly-royal", "jolly-royal.svgz"),
            ("gm-paris", "paris.svgz"),
        )
    ],
    *[
        BackSource(f"openclipart_{name}", "openclipart-svg", "public domain", f"{CLIPART}/cardbacks/{name}.svg")
        for name in OPENCLIPART_BACKS
    ],
    BackSource(
        "kennard", "@heruka_urgyen/react-playing-cards", "MIT (package), CC0-1.0 (art)", "package/src/images/back.svg"
    ),
    BackSource("blackjack_gui", "blackjack-gui", "MIT", "blackjack_gui/images/back.png"),
]


def build_backs() -> None:
    """Render the card backs into datasets/backs/<name>.png (CARD_HEIGHT px high)."""
    folder = DATASETS / "backs"
    if folder.exists():
        shutil.rmtree(folder)
    for back in BACKS:
        path = package_root(back.package) / back.path
        if path.suffix == ".png":
            image = crop_to_alpha(read_rgba(path))
        else:
            first = render_svg(path, 1.0, back.element_id)
            image = render_svg(path, CARD_HEIGHT / first.shape[0], back.element_id)
        width = round(image.shape[1] * CARD_HEIGHT / image.shape[0])
        image = cv2.resize(image, (width, CARD_HEIGHT), interpolation=cv2.INTER_AREA)
        save_png(image, folder / f"{back.name}.png")
        print(f"back {back.name}: {width}x{CARD_HEIGHT}")


# ------------------------------------------------------------------ table surfaces
@dataclass(frozen=True)
class SurfaceSource:
    """One table-surface picture: a photo (resized) or a small texture tile (tiled)."""

    name: str
    package: str
    license: str
    path: str
    kind: str = "photo"  # "photo" or "tile" (repeat to fill SURFACE_TILED_SIZE)


SURFACE_LONG_SIDE = 1280
SURFACE_TILED_SIZE = (1024, 768)
GIMP_PATTERNS = "usr/share/gimp/2.0/patterns"
LOMIRI = "usr/share/backgrounds"
MATE = "usr/share/backgrounds/mate/nature"
SURFACES: list[SurfaceSource] = [
    SurfaceSource("mate_wood", "mate-backgrounds", GPL2, f"{MATE}/Wood.jpg"),
    SurfaceSource("mate_dune", "mate-backgrounds", GPL2, f"{MATE}/Dune.jpg"),
    SurfaceSource("mate_blinds", "mate-backgrounds", GPL2, f"{MATE}/Blinds.jpg"),
    SurfaceSource("mate_green_meadow", "mate-backgrounds", GPL2, f"{MATE}/GreenMeadow.jpg"),
    SurfaceSource("mate_rain_drops", "mate-backgrounds", GPL2, f"{MATE}/RainDrops.jpg"),
    SurfaceSource(
        "lomiri_concrete_bowl",
        "lomiri-wallpapers-16.04",
        'CC-BY-4.0 (Trevor "Freespace", 2018)',
        f"{LOMIRI}/Picture_0B_by_freespace.jpg",
    ),
    SurfaceSource(
        "lomiri_brushes",
        "lomiri-wallpapers-16.04",
        'CC-BY-4.0 (Trevor "Freespace", 2018)',
        f"{LOMIRI}/Picture_1A_by_freespace.jpg",
    ),
    SurfaceSource(
        "lomiri_analog_pattern",
        "lomiri-wallpapers-16.04",
        "CC-BY-SA-4.0 (Peter Nerlich, 2018)",
        f"{LOMIRI}/analogpattern_by_Peter_Nerlich.jpg",
    ),
    SurfaceSource(
        "lomiri_clock_table",
        "lomiri-wallpapers-16.04",
        "CC-BY-SA-4.0 (Peter Nerlich, 2018)",
        f"{LOMIRI}/greentock_by_Peter_Nerlich.jpg",
    ),
    SurfaceSource(
        "foobillard_wood_floor", "foobillardplus-data", "GPL-2.0-only", "usr/share/games/foobillardplus/data/floor.png"
    ),
    *[
        SurfaceSource(f"gimp_{Path(pattern).stem.lower()}", "gimp-data", GPL3, f"{GIMP_PATTERNS}/{pattern}", "tile")
        for pattern in (
            "Animal/leather.pat",
            "Fabric/burlap.pat",
            "Food/java.pat",
            "Legacy/fibers.pat",
            "Paper/crinklepaper.pat",
            "Paper/paper.pat",
            "Stone/granite1.pat",
            "Stone/marble1.pat",
            "Stone/marble2.pat",
            "Stone/pink_marble.pat",
            "Stone/slate.pat",
            "Stone/stone33.pat",
            "Stone/terra.pat",
            "Wood/burlwood.pat",
            "Wood/corkboard.pat",
            "Wood/parque1.pat",
            "Wood/pine.pat",
            "Wood/walnut.pat",
            "Wood/wood1.pat",
            "Wood/wood2.pat",
            "Wood/wood5.pat",
        )
    ],
    *[
        SurfaceSource(f"digikam_{name}", "digikam-data", GPL2, f"usr/share/digikam/data/{name}-texture.png", "tile")
        for name in ("canvas", "fabric", "paper2")
    ],
]


def read_gimp_pattern(path: Path) -> np.ndarray:
    """A GIMP .pat file (big-endian header, then raw pixels) as a BGR array."""
    data = path.read_bytes()
    header_size, _version, width, height, channels = np.frombuffer(data[:20], ">u4")
    if data[20:24] != b"GPAT":
        raise RuntimeError(f"{path} is not a GIMP pattern")
    pixels = np.frombuffer(data[header_size : header_size + width * height * channels], np.uint8)
    pixels = pixels.reshape(height, width, channels)
    if channels in (1, 2):
        return cv2.cvtColor(np.ascontiguousarray(pixels[:, :, 0]), cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(np.ascontiguousarray(pixels[:, :, :3]), cv2.COLOR_RGB2BGR)


def surface_image(surface: SurfaceSource) -> np.ndarray:
    """The surface as a BGR image: photos shrunk to SURFACE_LONG_SIDE, tiles repeated."""
    path = package_root(surface.package) / surface.path
    if path.suffix == ".pat":
        image = read_gimp_pattern(path)
    else:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise RuntimeError(f"cannot read {path}")
    if surface.kind == "tile":
        # scale the tile so that its pattern repeats every ~200 px, then fill the canvas
        scale = max(1.0, 200 / max(image.shape[:2]))
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        width, height = SURFACE_TILED_SIZE
        reps_y = -(-height // image.shape[0])
        reps_x = -(-width // image.shape[1])
        return np.tile(image, (reps_y, reps_x, 1))[:height, :width]
    scale = SURFACE_LONG_SIDE / max(image.shape[:2])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image


def build_surfaces() -> None:
    """Write datasets/surfaces/<name>.jpg (JPEG quality 85)."""
    folder = DATASETS / "surfaces"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for surface in SURFACES:
        image = surface_image(surface)
        cv2.imwrite(str(folder / f"{surface.name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        print(f"surface {surface.name}: {image.shape[1]}x{image.shape[0]}")


# ------------------------------------------------------------------ notice
def source_version(package: str, version: str = "") -> str:
    if version:
        return version
    if package in DEBIAN_PACKAGES:
        return package_version(package)
    for spec in (*NPM_PACKAGES, *PYPI_PACKAGES):
        name, _, pinned = spec.rpartition("@") if "@" in spec[1:] else spec.partition("==")
        if name == package:
            return pinned
    return "?"


def write_notice() -> None:
    """datasets/NOTICE.md: the package, version and licence of every committed picture."""
    lines = [
        "# Notices for the card art and table pictures in datasets/",
        "",
        "Every file under `decks/`, `backs/` and `surfaces/` is a rendering or resized copy of a",
        "file shipped in the package named below (rebuild: `python3 datasets/build_assets.py all`).",
        "Each stays under its own licence; the packages' copyright files name the authors.",
        "",
        "## Decks (`decks/<id>/`)",
        "",
        "| deck | package | version | path in package | licence | split |",
        "|---|---|---|---|---|---|",
    ]
    for deck in DECKS:
        split = "val" if deck.deck_id in VAL_DECKS else "train"
        lines.append(
            f"| {deck.deck_id} | {deck.package} | {source_version(deck.package, deck.version)}"
            f" | `{deck.path}` | {deck.license} | {split} |"
        )
    from retypeset_decks import retypeset_notice

    lines += retypeset_notice()
    lines += [
        "",
        "## Card backs (`backs/`)",
        "",
        "| file | package | version | path in package | licence |",
        "|---|---|---|---|---|",
    ]
    for back in BACKS:
        lines.append(
            f"| {back.name}.png | {back.package} | {source_version(back.package)} | "
            f"`{back.path}`{' #' + back.element_id if back.element_id else ''} | "
            f"{back.license} |"
        )
    lines += [
        "",
        "## Table surfaces (`surfaces/`)",
        "",
        "| file | package | version | path in package | licence |",
        "|---|---|---|---|---|",
    ]
    for surface in SURFACES:
        lines.append(
            f"| {surface.name}.jpg | {surface.package} | {source_version(surface.package)}"
            f" | `{surface.path}` | {surface.license} |"
        )
    lines += ["", "## Fonts (`fonts/`)", "", *FONTS_NOTICE]
    (DATASETS / "NOTICE.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {DATASETS / 'NOTICE.md'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "stage", choices=["fetch", "decks", "regions", "retypeset", "backs", "surfaces", "notice", "all"]
    )
    parser.add_argument("ids", nargs="*", help="deck ids (decks stage only); default all")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    os.nice(10)  # rendering is CPU-heavy; the machine is shared
    if args.stage in ("fetch", "all"):
        fetch()
    if args.stage in ("decks", "all"):
        build_decks(args.ids, args.workers)
    if args.stage == "regions":
        rebuild_regions(args.ids)
    if args.stage in ("retypeset", "all"):  # after "decks": it starts from their faces
        from retypeset_decks import build_retypeset_decks

        build_retypeset_decks(save_png)
    if args.stage in ("backs", "all"):
        build_backs()
    if args.stage in ("surfaces", "all"):
        build_surfaces()
    if args.stage in ("notice", "all"):
        write_notice()
    return 0


if __name__ == "__main__":
    sys.exit(main())
