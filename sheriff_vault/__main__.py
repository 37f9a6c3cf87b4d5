from sheriff_vault.cli import main

main()
