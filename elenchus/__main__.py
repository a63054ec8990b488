from elenchus.cli import main

main()
