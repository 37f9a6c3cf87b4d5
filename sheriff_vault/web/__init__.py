"""The memory browser (`vault serve`): a local web app over the same library functions the CLI uses.

`views` gathers each page's data from the store, timetravel, sleeps, review, recall and doctor;
`render` turns topic Markdown and diffs into safe HTML; `security` guards Host, Origin and the
token; `app` maps URLs to pages; `server` runs it with uvicorn.
"""
