fn main() {
    // Before anything else: started as an extraction child, this process only extracts.
    if research_api::extraction_child::is_child_invocation() {
        research_api::extraction_child::serve();
    }
    research_studio::run()
}
