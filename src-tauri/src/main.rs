fn main() {
    research_studio::run()
}
