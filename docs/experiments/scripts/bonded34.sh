# bonded34.sh: issue 38's experiment as bonded30.sh ran it, with the reader of session 34: the taught deck's
# classifier reads a photo only when its median "my deck" share over the photo's card crops reaches
# classifiers.taught_photo_median (crop_reading.taught_deck_in_photo), so other decks' photos (real-val,
# real-clutter) read as the shipped reader reads them. Taught from four rendered table photos with its check photo,
# `ginscore retrain --taught-partner` in its default budget, judged by its rule; then BONDED50, 50B and 50C.
# The steps are bonded30.sh's, run with the code of session 34 and its own output folder.
S=${S:-/work/s34/b} exec bash "$(dirname "$0")/bonded30.sh"
